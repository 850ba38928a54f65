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
  different inputs are refused; reduce takes the metric and options from --metric/-o and never
  loads a model or creates a path named by a file; it checks each record field's type and range
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
levels:
  segment: the metric against --human per row; system: over the mean per system
  (--system-field, default system). A system is a string or an integer; rows without one
  (missing or null) are left out of the system level only, and the output says how many rows
  and systems it rests on (n_systems, n_system_rows in --json).
  --bootstrap N gives 95% intervals from N resamples (default 1000; 0: none, null in --json).
"""
