# one_island.awk - a scene of n Hunt-Crossley contacts between one 10 g
# mass and one floor, each a little further off (gap i 1e-7 m), so one
# island of n contacts (issue 32 item 5: 3000 took 99.8 s to check, about
# n^4): awk -v n=N -f tests/one_island.awk > scene.cfg.  Used by
# tests/sizes.sh and tests/bench/bench_check.sh (3000).
BEGIN {
  print "scene = { name = \"one\"; fs = 44100.0; duration = 0.01; gravity = 9.81; };"
  print "bodies = ( { name = \"floor\"; type = \"wall\"; position = 0.0; },"
  print "  { name = \"ball\"; type = \"mass\"; mass = 0.01; u0 = 0.001; v0 = -1.0; } );"
  printf "contacts = ("
  for (i = 0; i < n; i++) printf "%s\n  { name = \"c%d\"; between = [\"floor\", \"ball\"]; law = \"hunt-crossley\"; k = %g; alpha = 1.5; mu = 0.5; scheme = \"two-point\"; gap = %g; }", (i ? "," : ""), i, 1e9 / n, i * 1e-7
  print " );"
  print "record = { signals = []; };"
}
