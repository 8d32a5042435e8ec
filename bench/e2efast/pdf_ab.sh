#!/usr/bin/env bash
# The paper rule's PDF check, before against after: bench/e2efast/pdf_ab.sh ARM... (each `before` or `after`, in the
# order to run them). DIR ($PDF_AB, default /var/tmp/e2efast/pdf) holds fixed copies: main.pdf (the built paper),
# claims.parquet, figures/*.pdf, order.txt (the figures' names in the rule's order), layout.json and pdf_check.ref
# (the built tree's layout and log). $BEFORE_SRC and $AFTER_SRC: the arms' src/ (`git archive <commit> src | tar -x`).
# Each run under /work/locks/cpu, `-j 2` as the rule runs it, timed by /usr/bin/time (CPU: user + sys, children
# included); one line per run to DIR/ab.txt, with the 1-min load at its start and whether log and layout are the same.
set -uo pipefail
dir=${PDF_AB:-/var/tmp/e2efast/pdf}
cd "$dir"
F=$(for f in $(cat order.txt); do echo figures/$f.pdf; done)
i=$(wc -l < ab.txt 2>/dev/null || echo 0)
for arm in "$@"; do
  i=$((i + 1))
  src=${BEFORE_SRC:-/var/tmp/e2efast/before/src}; [ "$arm" = after ] && src=${AFTER_SRC:-/var/tmp/e2efast/after-src}
  load=$(cut -d' ' -f1 /proc/loadavg)
  # shellcheck disable=SC2086
  /work/locks/cpu /usr/bin/time -f '%e %U %S' -o t.$i env PYTHONPATH="$src" python -m blkscope.paper.pdf_text main.pdf \
    --claims claims.parquet --layout lay.$i.json --figures $F -j 2 > log.$i 2>&1
  rc=$?
  same=$(cmp -s lay.$i.json layout.json && cmp -s log.$i pdf_check.ref && echo same || echo DIFFERENT)
  echo "$i $arm rc=$rc load=$load wall/user/sys $(cat t.$i) $same" | tee -a ab.txt
done
