# testlib.sh - helpers shared by the shell tests (sourced; $tmp must be set).
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS CMD...: run CMD, require its exit status
expect() {
  want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "$* exited $got, expected $want: $(cat "$tmp/err")"; fi
}

# contains FILE TEXT: require TEXT in FILE
contains() {
  if grep -qF -- "$2" "$1"; then ok; else bad "'$2' not in $(cat "$1")"; fi
}

# only_line FILE TEXT: require FILE to be exactly the one line TEXT
only_line() {
  if [ "$(wc -l <"$1")" -eq 1 ] && [ "$(cat "$1")" = "$2" ]; then ok
  else bad "expected the one line '$2', got '$(cat "$1")'"; fi
}

# equal WHAT GOT WANT: require GOT to be WANT
equal() {
  if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi
}

# error MESSAGE CMD...: CMD exits 1 with exactly MESSAGE on stderr
error() {
  msg=$1; shift
  expect 1 "$@"
  only_line "$tmp/err" "$msg"
}

# same A B WHAT: h5diff finds no difference in any dataset or attribute
# (needs $tmp)
same() {
  if h5diff "$1" "$2" >"$tmp/diff" 2>&1; then ok; else bad "$3: $1 and $2 differ: $(head -5 "$tmp/diff")"; fi
}

# pyref_setup MODULES NAME: for a test whose reference is written in Python
# (numpy, scipy: an independent implementation, tests/<wing>/*.py), set
# $python (Debian's) and a temporary $tmp removed at exit; skip (77) when
# python lacks one of MODULES ("numpy, scipy, h5py").
pyref_setup() {
  python=/usr/bin/python3
  if ! "$python" -c "import $1" 2>/dev/null; then
    echo "SKIP: $python lacks one of $1"
    exit 77
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-$2.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
}
