"""Evaluating metrics: correlations with human judgements (meta_eval, meta_system, pairwise,
batch_stats), significance between metrics (metric_vs_metric) and mt-metrics-eval EvalSets (mtme).
It reads any metric's scores and imports no metric; ``core`` imports nothing of it."""
