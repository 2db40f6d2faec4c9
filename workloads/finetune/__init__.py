"""Causal-LM fine-tuning (full and LoRA) of the llm workload's Llama-family model: tokens/s, MFU, loss."""
