# Sourced by the bench scripts (bench/*/run.sh): $here, the checkout; its .venv (or $VENV) active; BLKSCOPE_NATIVE,
# its blkscope-native unless set.
here=$(cd "$(dirname "${BASH_SOURCE[1]}")/../.." && pwd)
source "${VENV:-$here/.venv}/bin/activate"
export BLKSCOPE_NATIVE=${BLKSCOPE_NATIVE:-$here/native/target/release/blkscope-native}
