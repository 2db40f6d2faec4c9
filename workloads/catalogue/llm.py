"""The words of `cardbench run llm`: ``workload.llm.<key>``, said by message id (`workloads.catalogue.Message`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the spec (workloads/llm/spec.py): its title, progress word, notes and the labels of its figures (metric.*, line.*)
    "workload.llm.cpu_note": ("no accelerator, so the tiny preset (19.7M parameters) over a small sweep (32/128 input tokens x 16 output x batch 1/4), one timed run a cell, and pp64/tg16 twice instead of pp512/tg128 five times",
                              "没有加速卡，因此用 tiny 预设（1970 万参数）跑小规模扫描（输入 32/128 token × 输出 16 × 批 1/4），每单元计时一次，并以 `pp64`/`tg16` 各两次代替 `pp512`/`tg128` 各五次"),
    "workload.llm.title": ("LLM readiness (Llama-family prefill and decode)",
                           "大模型就绪度（Llama 系列预填充与解码）"),
    # the steps are the cells, then llama-bench's tests: "cell or test 3/4"
    "workload.llm.progress": ("cell or test",
                              "单元或测试"),
    # a rate's label leads with its unit (the value is said before it: "45.2 tokens/s tg: ...")
    "workload.llm.metric.tg_tokens_per_s": ("tokens/s tg: decode at batch 1 (llama-bench, mean of repetitions)",
                                            "token/秒 `tg`：批 1 解码（`llama-bench`，重复均值）"),
    "workload.llm.metric.pp_tokens_per_s": ("tokens/s pp: prefill at batch 1 (llama-bench, mean of repetitions)",
                                            "token/秒 `pp`：批 1 预填充（`llama-bench`，重复均值）"),
    "workload.llm.metric.decode_tokens_per_s": ("tokens/s decode per sequence (1 / TPOT p50)",
                                                "token/秒 每序列解码（1 / TPOT p50）"),
    "workload.llm.metric.decode_tokens_per_s_all": ("tokens/s decode, all sequences (batch / TPOT p50)",
                                                    "token/秒 解码，全部序列（批 / TPOT p50）"),
    "workload.llm.metric.decode_bound_tokens_per_s": ("tokens/s decode bound per sequence (measured read bandwidth / "
                                                      "data read a step)",
                                                      "token/秒 每序列解码上限（实测读带宽 / 每步读取量）"),
    # the measured read bandwidth and a share of it go by one name everywhere (RESULT, the tables, the summary); a
    # share says whose it is: the cell's decode here, a tg test's in llama-bench's table and the summary
    "workload.llm.metric.device_read_gbps": ("GB/s measured read bandwidth (the fastest sum of a tensor)",
                                             "GB/s 实测读带宽（张量求和最快一次）"),
    "workload.llm.metric.bandwidth_method": ("how the measured read bandwidth was measured", "实测读带宽的测量方法"),
    "workload.llm.metric.decode_bandwidth_fraction": ("share of the measured read bandwidth, the cell's decode",
                                                      "占实测读带宽的比例，该单元的解码"),
    "workload.llm.metric.tpot_p50_s": ("time per output token p50",
                                       "每输出 token 时间 p50"),
    "workload.llm.metric.tpot_p90_s": ("time per output token p90",
                                       "每输出 token 时间 p90"),
    "workload.llm.metric.tpot_p99_s": ("time per output token p99",
                                       "每输出 token 时间 p99"),
    "workload.llm.metric.prefill_tokens_per_s": ("tokens/s prefill (batch x input tokens / TTFT)",
                                                 "token/秒 预填充（批 × 输入 token / 首 token 时间）"),
    "workload.llm.metric.prefill_tflops": ("TFLOP/s prefill achieved (matrix products and causal attention / TTFT)",
                                           "TFLOP/s 预填充实际达到（矩阵乘与因果注意力 / 首 token 时间）"),
    "workload.llm.metric.prefill_peak_fraction": ("share of the rated peak FLOP/s, the cell's prefill",
                                                  "占额定峰值算力的比例，该单元的预填充"),
    "workload.llm.metric.end_to_end_s": ("end-to-end time",
                                         "端到端时间"),
    "workload.llm.metric.peak_memory_bytes": ("peak memory",
                                              "峰值内存"),
    "workload.llm.metric.fit_estimate_error": ("fit estimate against measured peak (first cell)",
                                               "内存估算相对实测峰值（首个单元）"),
    "workload.llm.metric.sweep": ("sweep (input x output x batch)",
                                  "扫描（输入 × 输出 × 批）"),
    # llama-bench's tests by their lengths (pp512, tg128): workloads/llm/result_record.py's families
    "workload.llm.metric.pp_n_tokens_per_s": ("tokens/s pp{n}: prefill of {n} tokens at batch 1 (llama-bench, mean of "
                                              "repetitions)",
                                              "token/秒 `pp{n}`：批 1 预填充 {n} 个 token（`llama-bench`，重复均值）"),
    "workload.llm.metric.pp_n_stddev_tokens_per_s": ("tokens/s pp{n}: sample standard deviation of the repetitions",
                                                     "token/秒 `pp{n}`：各次重复的样本标准差"),
    "workload.llm.metric.pp_n_runs_tokens_per_s": ("tokens/s pp{n}: each repetition",
                                                   "token/秒 `pp{n}`：每次重复"),
    "workload.llm.metric.tg_n_tokens_per_s": ("tokens/s tg{n}: decode of {n} tokens at batch 1 (llama-bench, mean of "
                                              "repetitions)",
                                              "token/秒 `tg{n}`：批 1 解码 {n} 个 token（`llama-bench`，重复均值）"),
    "workload.llm.metric.tg_n_stddev_tokens_per_s": ("tokens/s tg{n}: sample standard deviation of the repetitions",
                                                     "token/秒 `tg{n}`：各次重复的样本标准差"),
    "workload.llm.metric.tg_n_runs_tokens_per_s": ("tokens/s tg{n}: each repetition",
                                                   "token/秒 `tg{n}`：每次重复"),
    # what the run was, its one cell, its bounds' sources and its fit
    "workload.llm.metric.pp": ("pp length (llama-bench's prompt tokens; 0: not run)",
                               "`pp` 长度（`llama-bench` 提示 token 数；0：未运行）"),
    "workload.llm.metric.tg": ("tg length (llama-bench's generated tokens; 0: not run)",
                               "`tg` 长度（`llama-bench` 生成 token 数；0：未运行）"),
    "workload.llm.metric.input_len": ("input tokens (prompt)",
                                      "输入 token 数（提示）"),
    "workload.llm.metric.output_len": ("output tokens",
                                       "输出 token 数"),
    "workload.llm.metric.repeat": ("timed runs a cell",
                                   "每单元计时运行次数"),
    "workload.llm.metric.cells": ("readiness cells (the report's table)",
                                  "就绪度单元（见报告中的表）"),
    "workload.llm.metric.status": ("cell status",
                                   "单元状态"),
    "workload.llm.metric.estimate_bytes": ("memory estimate of the cell (inference fit)",
                                           "该单元的内存估算（推理）"),
    "workload.llm.metric.decode_bytes_per_step": ("data read a decode step (weights + KV cache at the mean context)",
                                                  "每解码步读取量（权重 + 平均上下文处的 KV 缓存）"),
    "workload.llm.metric.free_bytes": ("device memory free at the start",
                                       "开始时设备可用内存"),
    "workload.llm.metric.largest_batch": ("largest batch that fits at the first cell's context",
                                          "首个单元上下文下可容纳的最大批"),
    "workload.llm.metric.largest_context": ("longest context that fits at the first cell's batch (positions)",
                                            "首个单元批大小下可容纳的最长上下文（位置数）"),
    "workload.llm.metric.sample_text": ("generated text (greedy, sequence 1, first 500 characters)",
                                        "生成文本（贪心，序列 1，前 500 个字符）"),
    "workload.llm.line.pp_tokens_per_s": ("pp tokens/s",
                                          "`pp` token/秒"),
    # the report's table (workloads/llm/table.py): its heading and columns
    "workload.llm.column.input_len": ("input",
                                      "输入"),
    "workload.llm.column.output_len": ("output",
                                       "输出"),
    "workload.llm.column.batch": ("batch",
                                  "批"),
    "workload.llm.column.ttft_ms": ("TTFT ms",
                                    "首 token 毫秒"),
    "workload.llm.column.tpot_p90_ms": ("TPOT p90 ms",
                                        "TPOT p90 毫秒"),
    "workload.llm.column.tpot_p99_ms": ("TPOT p99 ms",
                                        "TPOT p99 毫秒"),
    "workload.llm.column.decode_tokens_per_s": ("decode tok/s per seq",
                                                "每序列解码 token/秒"),
    "workload.llm.column.decode_tokens_per_s_all": ("decode tok/s all",
                                                    "全部解码 token/秒"),
    "workload.llm.column.decode_bound_tokens_per_s": ("bound tok/s per seq",
                                                      "每序列上限 token/秒"),
    "workload.llm.column.decode_bandwidth_fraction": ("of measured read bandwidth",
                                                      "占实测读带宽"),
    "workload.llm.column.prefill_tokens_per_s": ("prefill tok/s",
                                                 "预填充 token/秒"),
    "workload.llm.column.prefill_peak_fraction": ("prefill: of rated peak FLOP/s",
                                                  "预填充：占额定峰值算力"),
    "workload.llm.column.end_to_end_s": ("end-to-end s",
                                         "端到端 秒"),
    "workload.llm.column.peak_memory_gib": ("peak memory GiB",
                                            "峰值内存 GiB"),
    "workload.llm.column.estimate_gib": ("fit estimate GiB",
                                         "估算内存 GiB"),
    "workload.llm.column.status": ("status",
                                   "状态"),
    # the cells' figures in four tables by topic, each within 120 columns (a log pane wraps a wider line and loses
    # its columns): time and speed (workloads/llm/table.py), then workloads/llm/cell_tables.py's three
    "workload.llm.table.heading": (
        "Readiness cells (input x output tokens x batch), time and speed: TTFT median of the timed runs, TPOT "
        "percentiles over every decode step",
        "就绪度单元（输入 × 输出 token × 批），时间与速度：首 token 时间取计时运行中位数，TPOT 百分位取全部解码步"),
    "workload.llm.table.decode_heading": (
        "Readiness cells, decode against the measured read bandwidth: a decode step reads the weights and each "
        "sequence's KV cache once, so one sequence's tokens/s is bound by the measured read bandwidth / the data "
        "read a step",
        "就绪度单元，解码对照实测读带宽：每个解码步读一次权重和每个序列的 KV 缓存，因此单个序列的 token/秒 以"
        "实测读带宽 / 每步读取量为上限"),
    "workload.llm.table.rated_heading": (
        "Readiness cells against the device's rated figures (rated.csv; N/A: none rated, as on the CPU)",
        "就绪度单元对照设备额定值（rated.csv；N/A：无额定值，如 CPU）"),
    "workload.llm.table.memory_heading": ("Readiness cells, memory; peak memory: {kind}",
                                          "就绪度单元，内存；峰值内存：{kind}"),
    "workload.llm.table.more": ("... and {rows} more cell(s): every one is in the report's table and in events.jsonl",
                                "……另有 {rows} 个单元：全部见报告的表格和 events.jsonl"),
    # what llm's peak memory measured (workloads.llm.cells writes the English into the result)
    "workload.llm.memory_kind.device": ("device peak allocated (max_memory_allocated)",
                                        "设备分配峰值（max_memory_allocated）"),
    "workload.llm.memory_kind.process_reset": (
                                               "process peak RSS (VmHWM, reset before each cell) less the RSS before the model was built",
        "进程峰值 RSS 减去构建模型前的 RSS"),
    "workload.llm.memory_kind.process_so_far": (
                                                "process peak RSS (the peak so far) less the RSS before the model was built",
        "进程峰值 RSS 减去构建模型前的 RSS"),
    # llm's headline read against the read-bandwidth bound (workloads/llm/against.py): the summary's cell
    "workload.llm.against.stddev": (", stddev {stddev} tokens/s", "，标准差 {stddev} token/秒"),
    "workload.llm.against.mean_of": ("mean of {n} {tg} runs at batch 1{sd}", "批 1 下 {n} 次 `{tg}` 的均值{sd}"),
    "workload.llm.against.mean_of_one": ("mean of {n} {tg} run at batch 1{sd}", "批 1 下 {n} 次 `{tg}` 的均值{sd}"),
    "workload.llm.against.single": ("{tg} at batch 1{sd}", "批 1 下的 {tg}{sd}"),
    "workload.llm.against.bound": ("share of the measured read bandwidth, {test}: {share} (its bound {bound} tokens/s: "
                                   "{step} read a decode step at the measured read bandwidth {read}); {how}{first_cell}",
                                   "占实测读带宽的比例，{test}：{share}（其上限 {bound} token/秒：每个解码步读 {step}，"
                                   "实测读带宽 {read}）；{how}{first_cell}"),
    "workload.llm.against.first_cell": ("; share of the measured read bandwidth, cell {cell}: {fraction} % (its decode, "
                                        "1 / TPOT p50, {decode} tokens/s)",
                                        "；占实测读带宽的比例，单元 {cell}：{fraction} %（其解码，1 / TPOT p50，"
                                        "{decode} token/秒）"),
    "workload.llm.metric.bench": ("llama-bench's tests (each test's t/s, mean ± sd, beside its bounds)",
                                  "llama-bench 测试（每个测试的 t/s 均值 ± 标准差，与其上限并列）"),
    "workload.llm.metric.bench_output": ("llama-bench table's format on the terminal (--output)",
                                         "终端上 llama-bench 表的格式（--output）"),
    # llama-bench's tests in two tables (workloads/llm/bench_table.py), each within 120 columns: the tg tests against
    # the bandwidths, the pp tests against the peak; a figure the same for every test is said in the heading
    "workload.llm.bench.heading": ("llama-bench's tg tests: {model}, {size} of weights, {params} parameters, {backend}, "
                                   "{dtype}, {decode} decode; t/s mean ± sd of the repetitions; decode against the "
                                   "measured read bandwidth {read} and the rated memory bandwidth {rated}",
                                   "llama-bench 的 tg 测试：{model}，权重 {size}，{params} 个参数，{backend}，{dtype}，"
                                   "{decode} 解码；t/s 为重复的均值 ± 标准差；解码对照实测读带宽 {read} 与额定显存带宽 "
                                   "{rated}"),
    "workload.llm.bench.pp_heading": ("llama-bench's pp tests: {model}, {dtype}; t/s mean ± sd of the repetitions; "
                                      "prefill against the dtype's rated peak and the measured GEMM ceiling ({gemm})",
                                      "llama-bench 的 pp 测试：{model}，{dtype}；t/s 为重复的均值 ± 标准差；预填充对照该"
                                      "精度的额定峰值与实测 GEMM 上限（{gemm}）"),
    "workload.llm.bench.column.test": ("test", "测试"),
    "workload.llm.bench.column.rate": ("t/s (mean ± sd)", "t/s（均值 ± 标准差）"),
    "workload.llm.bench.column.decode": ("decode path", "解码路径"),
    "workload.llm.bench.column.achieved_gbps": ("decode GB/s read", "解码读取 GB/s"),
    "workload.llm.bench.column.read_fraction": ("of measured read bandwidth", "占实测读带宽"),
    "workload.llm.bench.column.rated_bandwidth_fraction": ("of rated memory bandwidth", "占额定显存带宽"),
    "workload.llm.bench.column.achieved_tflops": ("TFLOP/s", "TFLOP/s"),
    "workload.llm.bench.column.rated_fraction": ("of rated peak FLOP/s", "占额定峰值算力"),
    "workload.llm.bench.no_gemm_ceiling": ("N/A: no microbench GEMM figure in this run",
                                           "N/A：本次运行没有 microbench 的 GEMM 数据"),
    "workload.llm.metric.decode_gbps": ("GB/s read by decode (data read a step / TPOT p50)",
                                        "解码读取 GB/s（每步读取的数据 / TPOT p50）"),
    "workload.llm.metric.rated_gbps": ("GB/s rated memory bandwidth (rated.csv)", "GB/s 额定显存带宽（rated.csv）"),
    "workload.llm.metric.decode_rated_bandwidth_fraction": ("share of the rated memory bandwidth, the cell's decode",
                                                            "占额定显存带宽的比例，该单元的解码"),
    "workload.llm.column.decode_gbps": ("decode GB/s read", "解码读取 GB/s"),
    "workload.llm.column.decode_rated_bandwidth_fraction": ("decode: of rated memory bandwidth", "解码：占额定显存带宽"),
}
