"""A cold start: the time from a fresh process to its first output (llm's first token, finetune's first step's loss),
split into its phases (torch-free; the child's side is `workloads.cold_start.child`).

The workload's own process writes a preset's weights once (a child, so it holds no model itself), drops the weights'
pages from the page cache (`page_cache`), then starts its package's child module with ``python -m`` (`spawn`), which
stamps the wall clock after each phase; `split` turns the stamps into the result's figures and `table` into the
report's table. llm and finetune share all of it; each says what its child builds and runs.
"""
