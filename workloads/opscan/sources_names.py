"""The built-in sources' names, torch-free (the option check reads them before torch is imported)."""

BUILTINS = ("resnet50", "gpt2-decode", "gpt2-train", "llama-train", "llama-decode")
