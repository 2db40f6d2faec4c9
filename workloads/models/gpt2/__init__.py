"""GPT-2: its shapes and config.json (``config``, torch-free), the model (``model``), its weights (``weights``)."""
