# many_islands.awk - a scene of n alike 10 g masses dropped on one floor,
# each by its own Hunt-Crossley contact, so n islands (issue 32 item 4):
# awk -v n=N -f tests/many_islands.awk > scene.cfg.  Used by
# tests/cmd_check.sh (10^4), tests/sizes.sh and tests/bench/bench_check.sh
# (10^5).
BEGIN {
  print "scene = { name = \"many\"; fs = 44100.0; duration = 0.001; gravity = 9.81; };"
  printf "bodies = ( { name = \"floor\"; type = \"wall\"; position = 0.0; }"
  for (i = 0; i < n; i++) printf ",\n  { name = \"b%d\"; type = \"mass\"; mass = 0.01; u0 = 0.001; v0 = -1.0; }", i
  print " );"
  printf "contacts = ("
  for (i = 0; i < n; i++) printf "%s\n  { name = \"c%d\"; between = [\"floor\", \"b%d\"]; law = \"hunt-crossley\"; k = 1e9; alpha = 1.5; mu = 0.5; scheme = \"two-point\"; }", (i ? "," : ""), i, i
  print " );"
  print "record = { signals = []; };"
}
