"""Good events with garbage between them, an unknown field and an unknown event type; exits 0."""
import sys

from _emit import emit

emit("start", workload="malformed", config={"x": 1}, device="cpu", versions={}, future_field="kept")
print("this is not json")
sys.stdout.write('{"event": "step", "step": \n')
emit("step", step=1, loss=1.5, throughput=10.0, unit="images/s")
print('{"no_event_key": 1}')
emit("telepathy", step=2)
print("[1, 2, 3]")
emit("step", step=2, loss=1.25)
emit("result", metrics={"images_per_s": 10.0})
emit("end", status="ok")
