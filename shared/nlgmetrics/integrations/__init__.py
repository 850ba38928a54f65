"""The surfaces that plug nlgmetrics into other libraries: evaluate modules, the transformers
Trainer hook, torch.distributed scale-out."""
