"""The Llama family (Llama 3, Qwen 2.5/3, Mistral): shapes and presets (``presets``), config.json (``hf_config``)
and the fit estimate (``fit``), all torch-free; the model (``model``) and its checkpoints (``checkpoint``)."""
