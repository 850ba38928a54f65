"""The epilogs of ``nlgmetrics --help``, ``score --help`` and ``meta-eval --help``: the rules a
user of the command line needs (what the README once carried), printed as written."""
from __future__ import annotations

MAIN = """\
metric options:
  A metric option is --name VALUE or -o name=VALUE, parsed by the field's type (its type,
  default and choices: nlgmetrics score METRIC --help). A wrong name, type or value, a repeated
  -o key, or a flag and -o that disagree is one error line before any model loads.

exit codes:
  0 done; 1 a failure while running; 2 a usage or input error (one "error:" line);
  130 interrupted; 141 the standard output was closed (nlgmetrics list | head -1), as git does.
  Warnings print as one "warning: <message>" line on stderr. NLGMETRICS_DEBUG=1 shows tracebacks.

profiles:
  paper (the default) uses the papers' checkpoints from the Hugging Face hub; lite runs offline
  (pip install 'nlgmetrics[lite]'). nlgmetrics list says what each needs and what is installed.
"""

SCORE = """\
input files:
  One segment per \\n-terminated line (a final line without \\n counts, \\r\\n is one end); a
  blank line is an empty segment. UTF-8 (a byte-order mark is removed) or .gz; a pipe, a device
  or - is refused (inputs are read more than once: save them to a file first).
  A number file (--base-scores) holds one finite number a line, a plain decimal or scientific
  notation (0.5, -3, 1e-3; not 1_0, nan or inf).

large files:
  The files are read and scored --chunk-size segments at a time (default 512); caches keep at
  most four chunks' worth of texts, so memory stays flat. --chunk-size 0 scores all at once.

scale out:
  --shard K/N --records part.jsonl scores one shard; nlgmetrics reduce part*.jsonl merges them
  into the single-process result (records carry a fingerprint of the corpus; shards of
  different inputs are refused; reduce takes the metric and options from --metric/-o, loads no
  model (the records hold what the models computed; DATScore's reduction names its model's
  languages, so it loads it) and creates no path named by a file; it checks each record field's type and range
  for the metric and refuses a stored score that disagrees with the record's other fields, exit
  2 with one line naming the file, line and field). Under torchrun, --distributed scores
  data-parallel (gloo on CPU, nccl on GPU); per-segment inputs (--base-scores) shard too.

bad input:
  Lists of different lengths, None or non-string items: an error naming the field and line.
  Empty texts get each metric's documented score. Every text is put in Unicode NFC, invisible
  format marks (zero-width spaces and joiners, direction marks, soft hyphens, BOMs) are removed
  and no-break spaces read as spaces; lone UTF-16 surrogates become U+FFFD. Texts
  over max_words / max_length are cut with a warning. Text mostly in a non-Latin script given
  to English-only resources (RoMe, SAM) warns and is flagged in the details. --json writes
  undefined values as null, never NaN. --records naming an input file is refused.
"""

META_EVAL = """\
input:
  JSON lines: one output a row; fields hyp, ref, src, system, the --human field (a finite
  number, or null: missing, as None in an EvalSet: the row is scored, counts in its system's
  corpus score, and is left out of every statistic; the count is printed), --item-field
  (default: the source text). Or --mtme DIR --lp de-en: an
  mt-metrics-eval EvalSet (sources/LP.txt, references/LP.REF.txt, system-outputs/LP/SYS.txt,
  documents/LP.docs, human-scores/LP.HUMAN.seg.score with None for a missing score); every
  system the human scores rate is scored (the --ref output itself left out), and its documents
  are the items (--mtme-items segment: each segment). When human-scores/LP.HUMAN.sys.score
  exists, it is each system's human score at the system level (as in mt-metrics-eval; said in
  the output, "system_human" in --json), else the mean of the system's segment scores.
  Each system is scored as its own corpus. Systems are keyed by their string form (1 and "1"
  are one system); rows without one are left out of the system level only.

levels:
  segment  Pearson, Spearman, Kendall tau-b over all rows with a human score.
  system   the same over the systems: the metric's OWN corpus score of each system (not a
           mean of its segment scores, unless the metric's corpus score is one) against its
           mean human score. Under 3 systems: a warning and no interval.
  system   pairwise accuracy: share of system pairs ordered as the humans order them (a tie
           agrees only with a tie). Soft pairwise accuracy (SPA, Thompson et al. 2024):
           1 - mean |p_human - p_metric| of each pair's permutation p-value over the items
           every system has (--permutations flips; systems in name order); left out with a
           note when no item has every system.
  item     Pearson, Spearman, Kendall within each item (the outputs of one segment or
           document), averaged over items where defined; acc*_eq (Deutsch et al. 2023):
           pairwise accuracy with metric ties |dm| <= epsilon, epsilon chosen to maximise it,
           averaged over the items with two rows or more; DARR: WMT's Kendall-like over pairs
           whose human scores differ by >= --darr-threshold (metric ties discordant).
  intervals  --bootstrap N percentile 95% intervals (default 1000; 0: none, null in --json):
           rows resampled for the segment level; each system's rows resampled and its corpus
           reduction re-run for the system level. --seed, --bootstrap and --permutations are
           printed and kept in --json (seed, bootstrap, permutations).

metric against metric (--against METRIC or FILE.seg.score):
  For each statistic (segment, system and item Pearson, Spearman, Kendall; pairwise accuracy;
  SPA; acc*_eq): both values, the difference (this metric - the other), a 95% bootstrap
  interval of the difference and a p-value. Perm-Both (Deutsch et al. 2021, mt-metrics-eval's
  PermutationSigDiff): each unit's z-scored scores of the two metrics (a row; a system at the
  system level; a systems x items cell for SPA) swapped with probability 1/2, both statistics
  recomputed. acc*_eq: each metric at its own epsilon, each item's accuracy difference
  sign-flipped with probability 1/2 (whole items: mt-metrics-eval swaps single pairs, which
  share outputs, and rejected 7-19% of simulated null data at p < 0.05). Pearson also gets
  Williams' test (Williams 1959; Graham & Baldwin 2014).
  Sides: two-sided by default, for "the two metrics differ": p = (1 + #{|d_perm| >= |d|}) /
  (K + 1), Williams 2 P(T >= |t|). --one-sided gives the p of "this metric is better":
  (1 + #{d_perm >= d}) / (K + 1), Williams P(T >= t). mt-metrics-eval reports one-sided
  p-values (#{d_perm >= d} / K, Williams P(T >= |t|)). --json names the convention ("sides").

p-values:
  Every bootstrap p-value here and in compare centres the resampled signed differences on
  zero (the null) and counts |d_r - mean d| >= |d|, ties included: identical systems get p = 1.
  sacrebleu counts strictly larger differences without centring, so its p differs.
"""
