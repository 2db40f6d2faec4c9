"""GPT-2: its shapes and config.json (``config``) and the fit estimate (``fit``), torch-free; the model (``model``)
and its weights (``weights``)."""
