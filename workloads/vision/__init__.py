"""What the image workloads share, torch-free at import: the ImageNet-style transforms (:mod:`.transforms`) and
ResNet-50's training cost in FLOPs per image (:mod:`.resnet50_flops`), read by the resnet50 workload and by
dataio, which feeds images at the rate a ResNet-50 training consumes them."""
