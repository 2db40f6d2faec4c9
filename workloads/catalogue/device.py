"""The words every workload child says about its device: ``workload.device.<key>`` (the type it was asked for, the
vendor extension that type needs), from the one table of device types (`workloads.child.device_types`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    "workload.device.unknown_type": ("unknown device type {name}; the known types are {known}",
                                     "未知的设备类型 {name}；已知的类型为 {known}"),
    "workload.device.unknown_type_hint": ("add :N for the device's index (cuda:1); 'auto' picks the first type "
                                          "present",
                                          "可加 :N 指定设备序号（如 cuda:1）；'auto' 选第一个可用的类型"),
    "workload.device.extension_missing": ("device type {name} needs {module}, which is not installed",
                                          "设备类型 {name} 需要 {module}，但它未安装"),
    "workload.device.extension_missing_hint": ("install the {module} build that matches this torch and the card's "
                                               "driver",
                                               "安装与当前 torch 和该卡驱动匹配的 {module}"),
    "workload.device.extension_failed": ("{module} failed to import: {reason}",
                                         "{module} 导入失败：{reason}"),
    "workload.device.extension_failed_hint": ("device type {name} needs it: check the vendor's driver and toolkit "
                                              "libraries (LD_LIBRARY_PATH, the toolkit's set_env.sh) and that it "
                                              "was built for this torch",
                                              "设备类型 {name} 需要它：检查厂商驱动与工具包的库（LD_LIBRARY_PATH、"
                                              "工具包的 set_env.sh），以及它是否为当前 torch 构建"),
    "workload.device.autocast_unsupported": ("{device} has no {dtype} autocast (it takes {dtypes})",
                                             "{device} 不支持 {dtype} 自动混合精度（支持 {dtypes}）"),
}
