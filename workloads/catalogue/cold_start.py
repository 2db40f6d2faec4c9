"""A cold start's words (``workload.cold_start.<key>``), which llm and finetune share (`workloads.cold_start`): its figures'
labels, the report's table of its phases and the read's state."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the figures (workloads/cold_start/result_record.py)
    "workload.cold_start.metric.total_s": ("cold start: from a fresh process to the first output",
                                  "冷启动：从新进程启动到首个输出"),
    "workload.cold_start.metric.import_s": ("cold start: process start and torch import",
                                   "冷启动：进程启动与导入 torch"),
    "workload.cold_start.metric.device_s": ("cold start: device initialisation (first context)",
                                   "冷启动：设备初始化（首个上下文）"),
    "workload.cold_start.metric.read_s": ("cold start: weights read from storage",
                                 "冷启动：从存储读取权重"),
    "workload.cold_start.metric.read_state": ("cold start: the weights' read was cold or warm",
                                     "冷启动：权重读取为冷读或热读"),
    "workload.cold_start.metric.read_reason": ("cold start: why the read is said cold or warm",
                                      "冷启动：判定冷读或热读的依据"),
    "workload.cold_start.metric.read_how": ("cold start: how the read's state came about (its key)",
                                            "冷启动：读取状态的成因（键）"),
    "workload.cold_start.metric.read_resident": ("cold start: share of the weights' bytes in the page cache before "
                                                 "the read (mincore)",
                                                 "冷启动：读取前权重字节在页缓存中的比例（mincore）"),
    "workload.cold_start.metric.read_refused": ("cold start: what refused to drop the page cache",
                                                "冷启动：拒绝丢弃页缓存的原因"),
    "workload.cold_start.metric.read_bytes": ("cold start: weights bytes read",
                                     "冷启动：读取的权重字节数"),
    "workload.cold_start.metric.build_s": ("cold start: model built and moved to the device",
                                  "冷启动：构建模型并移至设备"),
    "workload.cold_start.metric.compile_s": ("cold start: first compile or graph capture",
                                    "冷启动：首次编译或图捕获"),
    "workload.cold_start.metric.compile_note": ("cold start: what the compile phase was",
                                       "冷启动：编译阶段说明"),
    "workload.cold_start.metric.compile_how": ("cold start: what the compile phase was (its key)",
                                               "冷启动：编译阶段类别（键）"),
    "workload.cold_start.metric.compile_error": ("cold start: the compile's error",
                                                 "冷启动：编译错误"),
    "workload.cold_start.metric.first_token_s": ("cold start: first token (prefill of the prompt)",
                                        "冷启动：首个 token（提示词预填充）"),
    "workload.cold_start.metric.first_step_s": ("cold start: first optimizer step, its loss read",
                                       "冷启动：首个优化器步（读出其损失）"),
    # the report's table (workloads/cold_start/table.py)
    "workload.cold_start.table.heading": ("Cold start: from a fresh process to the {output}, phase by phase (each from the "
                                 "end of the one before; the share is of the total)",
                                 "冷启动：从新进程启动到{output}，逐阶段计时（每阶段自上一阶段结束起算；占比为占总时间的比例）"),
    "workload.cold_start.output.token": ("first token", "首个 token"),
    "workload.cold_start.output.step": ("first optimizer step's loss", "首个优化器步的损失"),
    "workload.cold_start.column.phase": ("phase", "阶段"),
    "workload.cold_start.column.seconds": ("s", "秒"),
    "workload.cold_start.column.share": ("share of the total", "占总时间比例"),
    "workload.cold_start.column.what": ("what it measures", "计时内容"),
    "workload.cold_start.phase.import": ("process start and torch import", "进程启动与导入 torch"),
    "workload.cold_start.phase.device": ("device initialisation", "设备初始化"),
    "workload.cold_start.phase.read": ("weights read", "读取权重"),
    "workload.cold_start.phase.build": ("model build", "构建模型"),
    "workload.cold_start.phase.compile": ("first compile or graph capture", "首次编译或图捕获"),
    "workload.cold_start.phase.first_token": ("first token", "首个 token"),
    "workload.cold_start.phase.first_step": ("first optimizer step", "首个优化器步"),
    "workload.cold_start.phase.total": ("total", "合计"),
    "workload.cold_start.what.import": ("from the parent's clock before `python -m` to the child's imports done (torch first)",
                               "从父进程启动 `python -m` 前的时刻到子进程完成导入（首先是 torch）"),
    "workload.cold_start.what.device": ("a tiny tensor made on the device and the device synchronised",
                               "在设备上创建一个小张量并同步设备"),
    "workload.cold_start.what.read": ("{bytes} into host memory, {rate}; {state} read: {reason}",
                             "{bytes} 读入主机内存，{rate}；{state}：{reason}"),
    "workload.cold_start.what.build": ("the model made on the device and the weights copied in",
                              "在设备上创建模型并拷入权重"),
    "workload.cold_start.what.build_step": ("the model made on the device, the weights copied in, the adapters added and "
                                   "AdamW made", "在设备上创建模型、拷入权重、加入适配器并创建 AdamW"),
    "workload.cold_start.what.first_token": ("prefill of the prompt, the first token picked and read back",
                                    "提示词预填充，选出首个 token 并读回"),
    "workload.cold_start.what.first_step": ("forward, backward and AdamW step of one batch, its loss read back",
                                   "一个批次的前向、反向与 AdamW 更新，读回其损失"),
    "workload.cold_start.what.total": ("from the parent's clock before `python -m` to the {output}",
                              "从父进程启动 `python -m` 前的时刻到{output}"),
    # why a read is said cold or warm (workloads/cold_start/page_cache.py's ReadState.how); {resident}: the share of
    # the bytes in the page cache before the read (mincore), {refused}: what the system refused, in its own words
    "workload.cold_start.how.fadvise": ("page cache dropped (posix_fadvise); {resident} of the bytes resident before "
                                        "the read (mincore)",
                                        "已丢弃页缓存（posix_fadvise）；读取前 {resident} 的字节仍在页缓存中（mincore）"),
    "workload.cold_start.how.drop_caches": ("page cache dropped (/proc/sys/vm/drop_caches); {resident} of the bytes "
                                            "resident before the read (mincore)",
                                            "已丢弃页缓存（/proc/sys/vm/drop_caches）；读取前 {resident} 的字节仍在页缓存中"
                                            "（mincore）"),
    "workload.cold_start.how.unverified": ("page cache dropped (posix_fadvise); not verified: mincore cannot count "
                                           "here",
                                           "已丢弃页缓存（posix_fadvise）；未经验证：此处无法用 mincore 计数"),
    "workload.cold_start.how.refused": ("the page cache could not be dropped ({refused}); {resident} of the bytes in "
                                        "the page cache before the read (mincore)",
                                        "未能丢弃页缓存（{refused}）；读取前 {resident} 的字节在页缓存中（mincore）"),
    "workload.cold_start.how.memory": ("the weights are memory already ({refused}): there is no storage to read "
                                       "from",
                                       "权重本身就在内存中（{refused}）：没有可读取的存储"),
    "workload.cold_start.how.asked_warm": ("asked for warm: the files were read once before; {resident} of the bytes "
                                           "resident before the read (mincore)",
                                           "按要求热读：文件事先读过一遍；读取前 {resident} 的字节在页缓存中（mincore）"),
    # what the compile phase was (the child's compile_how: workloads/llm/cold_child.py, workloads/finetune/cold_child.py)
    "workload.cold_start.compile.off": ("N/A: no --compile (or --cuda-graphs) asked for",
                                        "N/A：未要求 --compile（或 --cuda-graphs）"),
    "workload.cold_start.compile.not_cuda": ("N/A: CUDA graphs need a cuda device",
                                             "N/A：CUDA graphs 需要 cuda 设备"),
    "workload.cold_start.compile.graph_captured": ("CUDA graph capture of the decode step",
                                                   "解码步的 CUDA graph 捕获"),
    "workload.cold_start.compile.decode_compiled": ("torch.compile of the decode step, its first call",
                                                    "解码步的 torch.compile（首次调用）"),
    "workload.cold_start.compile.model_compiled": ("torch.compile of the model: its first forward and backward "
                                                   "(gradients dropped)",
                                                   "模型的 torch.compile：首次前向与反向（梯度丢弃）"),
    "workload.cold_start.compile.block_compiled": ("torch.compile of each decoder block in place (regional): the "
                                                   "model's first forward and backward (gradients dropped)",
                                                   "逐个解码块原地 torch.compile（区域编译）：模型首次前向与反向（梯度丢弃）"),
    "workload.cold_start.compile.failed": ("failed ({error}); a run goes on eager",
                                           "失败（{error}）；运行将以 eager 模式继续"),
    "workload.cold_start.state.cold": ("cold", "冷读"),
    "workload.cold_start.state.warm": ("warm", "热读"),
}
