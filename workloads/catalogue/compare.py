"""The comparison's words (`tui.compare`): compare.md's headings, columns and sentences (``compare.<key>``), the
settings two runs are compared by (``compare.setting.<key>``), its notes (``compare.note.<case>``), the
price-performance verdict and the currencies' units (``currency.<code>``).

In Chinese what cardbench quotes (paths, device names, run ids) goes in code spans.
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    "compare.title": ("cardbench comparison", "cardbench 对比"),
    "compare.how": ("Baseline **{base}**. A ratio is a side's figure over the baseline's, of the figures the reports "
                    "quote (the median after warm-up); ± is hyperfine's ratio × √((s1/m1)² + (s2/m2)²) from each run's "
                    "per-step spread after warm-up (m mean, s standard deviation), and a side is faster or slower only "
                    "beyond it.",
                    "基准为 **{base}**。比值为各方数值除以基准数值，所比的是报告引用的数值（预热后中位数）；± 按 `hyperfine` 的方法"
                    "计算：`ratio × √((s1/m1)² + (s2/m2)²)`，其中 `s`、`m` 为各次运行预热后逐步吞吐量的标准差和均值，"
                    "超出该范围才判定更快或更慢。"),
    "compare.inputs": ("Inputs", "输入"),
    "compare.side": ("side", "对象"),
    "compare.input": ("input", "输入"),
    "compare.kind": ("kind", "类型"),
    "compare.device": ("device", "设备"),
    "compare.host": ("host", "主机"),
    "compare.price": ("price per hour", "每小时价格"),
    "compare.ratio": ("ratio to {base}", "相对 {base} 的比值"),
    "compare.verdict": ("faster?", "快慢"),
    "compare.faster": ("faster", "更快"),
    "compare.slower": ("slower", "更慢"),
    "compare.same": ("same within ±", "在误差内相当"),
    "compare.baseline": ("baseline", "基准"),
    "compare.noise": ("noise: a run shared its host or card", "噪声：有运行与其他任务共享主机或加速卡"),
    "compare.not_run": ("not run", "未运行"),
    "compare.diff_to": ("Δ {base}", "与 {base} 之差"),
    "compare.per_unit": ("{unit} per {currency}", "每{currency}{unit}数"),
    "compare.imagenet_epoch": ("cost per ImageNet-1k epoch", "每个 ImageNet-1k epoch 成本"),
    "compare.million_tokens": ("cost per million tokens", "每百万 token 成本"),
    "compare.price_perf": ("Price-performance", "性价比"),
    "compare.other_metrics": ("Other figures", "其他指标"),
    "compare.metric": ("metric", "指标"),
    "compare.notes": ("Notes", "说明"),
    "compare.chart": ("Headline ratio to the baseline, with its uncertainty", "相对基准的吞吐量比值及其误差"),
    "compare.settings_differ": ("Settings that differ are columns; the rest are the same on every side.",
                        "表中列出各方不同的设置；其余设置各方相同。"),
    "compare.bundle": ("report bundle", "报告包"),
    "compare.run": ("run directory", "运行目录"),
    "compare.published": ("published figure", "公开数据"),
    "compare.pts": ("{value} pts", "{value} 个百分点"),
    "compare.on": ("on", "开"),
    "compare.off": ("off", "关"),
    "compare.images": ("images", "图像"),
    "compare.tokens": ("tokens", "token"),
    # the settings (tui.compare.alike), by their key
    "compare.setting.image_size": ("image size", "图像尺寸"),
    "compare.setting.batch_size": ("batch size", "批大小"),
    "compare.setting.precision": ("precision", "精度"),
    "compare.setting.model_size": ("model size", "模型规模"),
    "compare.setting.tokens": ("new tokens", "生成 token 数"),
    "compare.setting.prompt_len": ("prompt length", "提示长度"),
    "compare.setting.world_size": ("processes", "进程数"),
    "compare.setting.data": ("data", "数据"),
    "compare.setting.served_model": ("served model", "服务的模型"),
    "compare.setting.endpoint": ("endpoint", "接口"),
    "compare.setting.input_len": ("input tokens", "输入 token 数"),
    "compare.setting.output_len": ("output tokens", "输出 token 数"),
    "compare.setting.concurrency": ("concurrency levels", "并发档位"),
    "compare.setting.request_rate": ("request rates", "请求速率档位"),
    "compare.setting.sweep": ("sweep (input x output x batch)", "扫描（输入 x 输出 x 批）"),
    "compare.setting.pp": ("pp tokens", "pp token 数"),
    "compare.setting.tg": ("tg tokens", "tg token 数"),
    "compare.setting.mode": ("fine-tuning mode", "微调方式"),
    "compare.setting.seq_len": ("sequence length", "序列长度"),
    "compare.setting.device": ("device", "设备"),
    "compare.setting.channels_last": ("channels-last", "channels-last"),
    "compare.setting.compile": ("compile", "编译"),
    "compare.setting.cuda_graphs": ("CUDA graphs", "CUDA graphs"),
    "compare.setting.cold_start_read": ("cold start's weights read", "冷启动的权重读取"),
    "compare.setting.torch": ("torch", "torch"),
    # a setting that differs: 'image size 64 (A) vs 224 (B)'
    "compare.value_of": ("{value} ({side})", "{value}（{side}）"),
    "compare.vs": (" vs ", " 对 "),
    # the notes under the tables
    "compare.note.png_missing": ("compare.png was not drawn: {why}", "未能生成 `compare.png`：{why}"),
    "compare.note.cpu_fallback": ("{workload}: on {side}, {ops} ran on the CPU while the model was on the card "
                                  "(PyTorch's CPU fallback): its figures include them",
                                  "{workload}：在 {side} 上，{ops} 在模型位于加速卡时于 CPU 上运行（PyTorch 的 CPU "
                                  "回退）：其各项指标包含了它们"),
    "compare.note.cpu_fallback_op": ("{op} ({share} of a step)", "{op}（占一步的 {share}）"),
    "compare.note.shared": ("{workload}: {side}'s run shared its host or card: {what}; so its ratios are noise, not "
                            "verdicts: run it again on a quiet machine",
                            "{workload}：{side} 的运行与其他任务共享了主机或加速卡：{what}；因此相关比值只是噪声，"
                            "不能作为结论：请在空闲的机器上重跑"),
    "compare.note.only_baseline": ("{workload}: only {base} ran it; not compared",
                                   "`{workload}`：只有 {base} 运行了它，未比较"),
    "compare.note.unlike": ("{workload}: compared with unlike settings (--allow-different): {differences}",
                            "`{workload}`：设置不同，按 `--allow-different` 仍作比较：{differences}"),
    "compare.note.not_on_baseline": ("{workload}: {side} ran it and the baseline {base} did not; not compared",
                                     "`{workload}`：{side} 运行了它而基准 {base} 没有，未比较"),
    "compare.note.left_out": ("{side}: run {other} ({workload}) left out; {used} is compared",
                              "{side}：未比较运行 `{other}`（`{workload}`），比较的是 `{used}`"),
    "compare.note.ended": ("{side}: run {run} ({workload}) ended {status}",
                           "{side}：运行 `{run}`（`{workload}`）结束状态为 `{status}`"),
    "compare.note.no_events": ("{side}: run {run} has no events in the bundle; left out",
                               "{side}：报告包中运行 `{run}` 没有事件，未比较"),
    "compare.note.published": ("{query}: {figure} (published; its spread is not known, so ± is the measured run's "
                               "alone)",
                               "{query}：`{figure}`（公开数据；其离散程度未知，± 仅来自实测运行）"),
    "compare.note.rated": ("{side} achieved {achieved} TFLOP/s in {precision}: {share} of {device}'s rated {rated} "
                           "TFLOP/s ({source}, {date})",
                           "{side} 在 {precision} 下达到 {achieved} TFLOP/s，为 `{device}` 额定 {rated} TFLOP/s 的 "
                           "{share}（来源 `{source}`，{date}）"),
    # the price-performance verdict (tui.compare.prices)
    "compare.price_verdict": ("{compared} reaches {tp} % of {baseline}'s {workload} throughput at {price} % of its "
                              "price: {ppp}x the performance per {unit}{same}",
                              "{compared} 的 {workload} 吞吐量是 {baseline} 的 {tp} %，价格是其 {price} %：每{unit}"
                              "性能为 {ppp} 倍{same}"),
    "compare.same_speed": ("; the throughputs are the same within the noise, so the difference is the price",
                           "；两者吞吐量在误差内相当，差别在价格"),
    # a currency's unit as the verdict names it ("per yuan"); other codes are named as given
    "currency.CNY": ("yuan", "元"),
    "currency.RMB": ("yuan", "元"),
    "currency.USD": ("dollar", "美元"),
    "currency.EUR": ("euro", "欧元"),
    "currency.JPY": ("yen", "日元"),
    "currency.GBP": ("pound", "英镑"),
    "currency.HKD": ("Hong Kong dollar", "港元"),
}
