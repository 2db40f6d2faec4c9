"""Microbenchmarks (issue 12): GEMM, memory, host link, launch latency and a bit-for-bit check against rated figures."""
