"""`cardbench ready`'s words (`tui.ready`): the questions, the table's columns, each row's evidence, the reasons a row
is N/A and the price-performance line (``ready.<key>``).

In Chinese what cardbench quotes (models, devices, ops, paths) stays as written.
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    "ready.section": ("Readiness: should this model move to this card?", "就绪评估：该模型是否适合迁移到这张卡？"),
    "ready.heading": ("Readiness of {model} in {dtype} on {device} ({wall} of a {budget} budget)",
                      "{model}（{dtype}）在 {device} 上的就绪评估（用时 {wall}，预算 {budget}）"),
    "ready.against_heading": ("Against the reference {device} ({where})", "对照参考卡 {device}（{where}）"),
    "ready.how_read": ("Each row is FlagPerf's form: what was measured (or, marked so, estimated), the rated figure or physical bound it is read "
                       "against (same unit), and their ratio. PASS: within what the card is rated for; WARN: it runs, "
                       "but far from its bound, past it (a bound or timing to check, not a result), or with ops left "
                       "on the CPU; FAIL: it does not fit, an op fails, or the loss departs from float64; N/A: no such "
                       "figure here, with the reason.",
                       "每行按 FlagPerf 的形式给出：实测值（或标明的估算值）、对照的额定值或物理上限（同一单位）及二者之比。通过：在该卡额定能力之内；"
                       "警告：能运行，但远低于上限、超过上限（需核查上限或计时，不能作为结果）或有算子回退到 CPU；失败：装不下、"
                       "有算子出错或损失与 float64 不一致；N/A：此处没有该数值，并说明原因。"),
    "ready.verdict_line": ("{verdict}  {question}: {evidence}", "{verdict}  {question}：{evidence}"),
    "ready.q.fit": ("fits (batch x context)", "能否装下（批量 × 上下文）"),
    "ready.q.ops": ("ops on the card in the dtype", "算子在该精度下于卡上运行"),
    "ready.q.loss": ("loss agrees with float64 on the CPU", "损失与 CPU float64 一致"),
    "ready.q.prefill": ("prefill against the compute peak", "预填充对照算力峰值"),
    "ready.q.decode": ("decode against the memory bandwidth", "解码对照显存带宽"),
    "ready.q.finetune": ("fine-tune tokens/s and MFU", "微调 tokens/s 与 MFU"),
    # not "...first token: <evidence>": the redactor reads "token: X" as a secret given (tui/redact/rules.py)
    "ready.q.cold_start": ("cold start (to the first token)", "冷启动（至首个 token）"),
    "ready.q.data_io": ("data IO from --data against the fine-tune", "`--data` 的数据读取对照微调"),
    "ready.q.price": ("performance per unit of price", "单位价格性能"),
    "ready.col.question": ("question", "问题"),
    "ready.col.measured": ("measured", "实测"),
    # the fit's figure is the plan's estimate, in the measured column: said so in the cell
    "ready.estimate": ("{value} (estimate)", "{value}（估算）"),
    "ready.col.bound": ("rated / bound", "额定 / 上限"),
    "ready.col.ratio": ("ratio", "比值"),
    "ready.col.verdict": ("verdict", "结论"),
    "ready.col.here": ("this card", "本卡"),
    "ready.col.reference": ("reference", "参考卡"),
    "ready.col.vs_reference": ("this / reference", "本卡 / 参考卡"),
    "ready.why.no_figure": ("the run gave no {key}", "运行未给出 {key}"),
    "ready.why.no_dtype": ("the op scan did not replay {dtype}", "算子扫描未在 {dtype} 下重放"),
    "ready.why.no_cold_start": ("this cardbench has no cold start measurement (its llm workload takes no --cold-start)",
                                "此版本 cardbench 没有冷启动测量（其 `llm` 工作负载不支持 `--cold-start`）"),
    "ready.why.no_data": ("no --data DIR given: the data IO of your own data is not measured",
                          "未给出 `--data DIR`：未测量你自己数据的读取"),
    "ready.why.no_speed": ("no speed measured on both cards", "两张卡没有都测得的速度"),
    "ready.why.no_price": ("{span} of the reference's speed; no price for both cards (--price-per-hour here, and "
                           "the reference's readiness made with one)",
                           "速度为参考卡的 {span}；缺少两张卡的价格（本次需 `--price-per-hour`，参考卡的就绪评估也需带价格）"),
    "ready.why.currencies": ("prices in two currencies ({here} here, {there} there)",
                             "两张卡价格币种不同（本卡 {here}，参考卡 {there}）"),
    "ready.why.budget": ("skipped: {left} of the {budget} budget left, the step needs at least {need}",
                         "已跳过：预算 {budget} 仅剩 {left}，该步骤至少需要 {need}"),
    "ready.why.failed": ("the run ended {status}{why}", "运行以 {status} 结束{why}"),
    "ready.why.refused": ("the workload refused the step's options: {why}", "工作负载拒绝了该步骤的选项：{why}"),
    "ready.why.not_created": ("its run could not be recorded: {why}", "无法记录其运行：{why}"),
    "ready.why.interrupted": ("not run: interrupted", "未运行：已中断"),
    "ready.why.interrupted_mid": ("stopped before its result: interrupted", "得出结果前已中断"),
    "ready.why.no_fit": ("not run: the model does not fit this device", "未运行：模型装不下该设备"),
    "ready.why.stopped": ("stopped at its share of the budget before a result", "到达预算份额时停止，尚无结果"),
    "ready.fit.evidence": ("inference in {dtype} is estimated to need {need} of {free} free at batch {batch} x "
                           "{context} positions; at most batch {largest_batch} at that context, {largest_context} "
                           "positions at batch 1; LoRA training is estimated to need {lora}",
                           "估算 {dtype} 推理在批量 {batch} × {context} 个位置时需要 {need}（可用 {free}）；该上下文下最大批量 "
                           "{largest_batch}，批量 1 时最长 {largest_context} 个位置；估算 LoRA 训练需要 {lora}"),
    "ready.ops.scan": ("{ok} of {total} ops traced from llm's decode and finetune's step (the Llama-family sources, at "
                       "a small width) ok in {dtype} (failing: {failing})",
                       "从 `llm` 解码与 `finetune` 训练步（Llama 系列的小宽度源）跟踪到的 {total} 个算子中，{ok} 个在 {dtype} 下"
                       "正常（失败：{failing}）"),
    "ready.ops.none": ("none", "无"),
    "ready.ops.fallback_unmeasured": ("ops left on the CPU during the runs: not measured by this cardbench (its results "
                                      "carry no cpu_fallback_ops)",
                                      "运行中回退到 CPU 的算子：此版本 cardbench 未测量（结果中没有 `cpu_fallback_ops`）"),
    "ready.ops.fallback_on_cpu": ("ops left on the CPU during the runs: N/A, the model ran on the CPU itself",
                                  "运行中回退到 CPU 的算子：不适用，模型本身就在 CPU 上运行"),
    "ready.ops.no_fallback": ("no op left the card during the runs ({copies} host-device copies per step at most)",
                              "运行中没有算子离开加速卡（每步主机-设备拷贝最多 {copies} 次）"),
    "ready.ops.fallback": ("{n} op(s) ran on the CPU while the model lived on the card: {ops}",
                           "模型位于加速卡时有 {n} 个算子在 CPU 上运行：{ops}"),
    "ready.loss.evidence": ("the first {k} losses ({precision}) differ from float64 on the CPU by at most {worst} "
                            "relative (bound {bound})",
                            "前 {k} 步损失（{precision}）与 CPU 上 float64 的相对差最大为 {worst}（上限 {bound}）"),
    "ready.prefill.evidence": ("{rate} tokens/s, {share} of the rated {peak} TFLOP/s ({source})",
                               "{rate} tokens/s，为额定 {peak} TFLOP/s 的 {share}（{source}）"),
    "ready.prefill.no_peak": ("{rate} tokens/s; this device has no rated compute peak to read it against",
                              "{rate} tokens/s；该设备没有可对照的额定算力峰值"),
    "ready.decode.evidence": ("{rate} tokens/s, {share} of the {bound} tokens/s that {read} GB/s ({method}) allows; "
                              "TPOT p50 {tpot}, TTFT {ttft}",
                              "{rate} tokens/s，为 {read} GB/s（{method}）所允许的 {bound} tokens/s 的 {share}；"
                              "TPOT p50 {tpot}，TTFT {ttft}"),
    "ready.finetune.evidence": ("{mode} in {precision}: {rate} tokens/s, MFU {mfu} of the rated {peak} TFLOP/s",
                                "{mode}（{precision}）：{rate} tokens/s，MFU 为额定 {peak} TFLOP/s 的 {mfu}"),
    "ready.finetune.no_rated_peak": ("no rated peak for this device", "该设备没有额定算力峰值"),
    "ready.finetune.no_peak": ("{mode}: {rate} tokens/s; MFU N/A: {why}", "{mode}：{rate} tokens/s；MFU 为 N/A：{why}"),
    "ready.cold_start.evidence": ("{total} from a fresh process to the first token (import {import}, device "
                                  "{device}, weights read {read} of {read_bytes}, {state}, build {build}, "
                                  "compile {compile}, first token {first_token}); WARN past {limit}",
                                  "从新进程到首个 token 用时 {total}（导入 {import}，设备初始化 {device}，"
                                  "读取权重 {read}，共 {read_bytes}，{state}，构建 {build}，编译 {compile}，"
                                  "首个 token {first_token}）；超过 {limit}为警告"),
    "ready.data_io.evidence": ("read {rate} from {files} file(s) of {root}, {bytes} in {seconds} s (page cache as found"
                               "{more}); the fine-tune here reads about {need} ({tokens} tokens/s x {bpt} B a token)",
                               "从 {root} 的 {files} 个文件读取速度 {rate}，{seconds} 秒读 {bytes}（页缓存保持原状{more}）；"
                               "本机微调约需 {need}（{tokens} tokens/s × 每 token {bpt} B）"),
    "ready.data_io.no_need": ("read {rate} from {files} file(s) of {root}, {bytes} in {seconds} s (page cache as found"
                              "{more}); no fine-tune rate here to read it against",
                              "从 {root} 的 {files} 个文件读取速度 {rate}，{seconds} 秒读 {bytes}（页缓存保持原状{more}）；"
                              "本机没有可对照的微调速度"),
    "ready.data_io.cap": (", stopped at the {cap} s cap", "，到 {cap} 秒上限即停止"),
    "ready.data_io.unreadable": ("{n} file(s) could not be read", "{n} 个文件无法读取"),
    "ready.data_io.nothing": ("nothing could be read from {root} ({unreadable} unreadable file(s))",
                              "无法从 {root} 读取任何内容（{unreadable} 个文件无法读取）"),
    "ready.against.figure_higher": ("{here} here, {there} on the reference (higher is better)",
                                    "本卡 {here}，参考卡 {there}（越高越好）"),
    "ready.against.figure_lower": ("{here} here, {there} on the reference (lower is better)",
                                   "本卡 {here}，参考卡 {there}（越低越好）"),
    "ready.against.price": ("{span} of the reference's speed ({n} figures, geometric mean {mean}) at {price} of "
                            "its price: {ppp}x the performance per {unit} of {device}",
                            "速度为参考卡的 {span}（{n} 项，几何平均 {mean}），价格为其 {price}：单位{unit}性能为 "
                            "{device} 的 {ppp} 倍"),
    # the launcher's entry (tui/ready/entry.py) and the workbench's run of the command (tui/workbench/app/ready_run.py)
    "ready.entry.title": ("Readiness: should this model move to this card? (cardbench ready)",
                          "就绪评估：该模型是否适合迁移到这张卡？（cardbench ready）"),
    "ready.entry.short": ("Ready", "就绪"),
    "ready.entry.progress": ("phase", "阶段"),
    "ready.run.notice": ("readiness", "就绪评估"),
    "ready.run.notice_ended": ("readiness {status}", "就绪评估 {status}"),
    "ready.field.model": ("model", "模型"),
    "ready.field.model_hint": ("a preset (tiny, Llama-3.1-8B...) or a checkpoint folder",
                               "预设（tiny、Llama-3.1-8B……）或检查点目录"),
    "ready.field.dtype": ("dtype", "精度"),
    "ready.field.budget": ("budget (min)", "预算（分钟）"),
    "ready.field.data": ("data dir", "数据目录"),
    "ready.field.data_hint": ("none: the data IO row is N/A", "不填：数据读取一行为 N/A"),
    "ready.field.device": ("device", "设备"),
    "ready.entry.budget_not_number": ("--budget must be minutes, a number, not {text}",
                                      "`--budget` 须为分钟数，而不是 {text}"),
    "ready.entry.budget_range": ("--budget must be more than 0 and at most {most} minutes, not {text}",
                                 "`--budget` 须大于 0 且不超过 {most} 分钟，而不是 {text}"),
    "ready.entry.bad_model": ("model: {text} is neither a preset ({known}) nor a checkpoint folder",
                              "模型：{text} 既不是预设（{known}）也不是检查点目录"),
    "ready.entry.bad_dtype": ("dtype: {text} is not one of {known}", "精度：{text} 不在 {known} 之中"),
    "ready.entry.bad_data": ("data dir: {text}: no such file or directory", "数据目录：{text} 不存在"),
    "ready.run.cannot_start": ("cannot start readiness: {why}", "无法启动就绪评估：{why}"),
    "ready.run.busy": ("a run of this workbench is active: stop it (s) or let it finish first",
                       "本工作台有运行正在进行：请先停止（s）或等其结束"),
    "ready.run.starting": ("starting cardbench {args}: its steps below, then its table and the report bundle "
                           "(s stops it and keeps what was measured; output also in {log})",
                           "启动 cardbench {args}：下方依次显示各步骤、结果表和报告包（s 停止并保留已测结果；输出也在 {log}）"),
    "ready.run.stopping": ("stopping readiness: the running step is stopped, the rest skipped; the table and the "
                           "bundle are still written", "正在停止就绪评估：停止当前步骤、跳过其余步骤；结果表和报告包仍会写出"),
    "ready.run.eta_of": ("the budget's end, at most", "至多到预算用完"),
    "ready.run.ended": ("readiness ended: {status} (exit {code})", "就绪评估结束：{status}（退出码 {code}）"),
    "ready.run.bundle": ("report bundle: {path}", "报告包：{path}"),
    "ready.run.left_running": ("readiness (pid {pid}) was asked to stop; it writes its table and bundle on its own: "
                               "see {log}", "已请求就绪评估（pid {pid}）停止；它会自行写出结果表和报告包：见 {log}"),
    "ready.run.no_detach": ("readiness runs from s (it stops when the workbench quits, keeping what it measured); "
                            "to have it outlive the workbench, run `cardbench ready` in a shell under nohup",
                            "就绪评估用 s 启动（工作台退出时停止并保留已测结果）；若要在工作台退出后继续，请在 shell 中用 nohup 运行 "
                            "`cardbench ready`"),
}
