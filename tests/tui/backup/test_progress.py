"""A backup's progress line: quiet for the first second, then a line every few seconds off a terminal."""

from tui.backup.progress import ProgressLine


def test_progress_is_a_line_every_few_seconds_off_a_terminal():
    class Stream:
        def __init__(self):
            self.text = ""

        def write(self, s):
            self.text += s

        def flush(self):
            pass

        def isatty(self):
            return False

    now = [0.0]
    stream = Stream()
    line = ProgressLine(stream, clock=lambda: now[0])
    line("staging", 10, 100 * 2**20)              # the first second: quiet
    now[0] = 2.0
    line("staging", 10 * 2**20, 100 * 2**20)
    now[0] = 3.0
    line("staging", 20 * 2**20, 100 * 2**20)      # within 5 s of the last line: not repeated
    now[0] = 7.0
    line("staging", 60 * 2**20, 100 * 2**20)      # 50 MiB in 5 s since the first line
    now[0] = 12.0
    line("uploading", 1 * 2**20, 100 * 2**20)     # a new phase: its own rate, from its own first bytes
    assert stream.text == ("backup: staging 10 % (10 MiB of 100 MiB)\n"
                           "backup: staging 60 % (60 MiB of 100 MiB, 10 MiB/s)\n"
                           "backup: uploading 1 % (1 MiB of 100 MiB)\n")
