"""Model code that workloads share: GPT-2 (``gpt2/``), the Llama family (``llama/``), and what both use.

The shared modules: the KV cache (``kv_cache``), the decode step's attention (``one_query``), the weight
product (``matvec``), the decoding loop and its decoders (``decoding``), checkpoint files and state dicts
(``checkpoint_files``, ``state_dict``), the tokenizer (``tokenizer``), the inference dtype (``inference_dtype``)
and the language-model loss (``loss``). A workload imports these, never another workload's package.

Importing the package is light: torch is imported by the modules that build or run a model; the configs,
presets, config.json readers, fit estimates and checkpoint file checks are torch-free.
"""
