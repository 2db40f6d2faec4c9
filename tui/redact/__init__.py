"""Keep the user's secrets out of the report bundle.

The bundle is handed to strangers (a campaign's reviewers), and it carries the
environment, the runs' arguments and their logs. Three layers, so one missed
case in a layer does not leak:

1. the environment is written only through an allow-list of names, and an
   allowed name that looks secret has its value replaced;
2. every value that is known to be secret (environment variables whose names
   look secret, values given to secret-looking options or keys in a run's
   arguments, URL passwords) is learned before anything is written;
3. :meth:`Redactor.text` runs over EVERY text written to the bundle as the last
   line of defence: it removes the learned values wherever they appear, masks
   credentials inside URLs, and blanks the values of ``NAME=value``,
   ``"name": "value"`` and ``--name value`` forms whose name looks secret, and
   well-known token shapes (``hf_...``, ``ghp_...``, ``sk-...``, AWS key ids, JWTs).

Two more things keep a secret out when the text it was in is cut short or the variable is gone:

4. a secret the run's arguments or config hold when the run is created (an ``$HF_TOKEN`` inside a
   ``--data`` path) is recorded with the run (:func:`record_for_run`, ``config.json["redact"]``): a salted
   SHA-256 digest and the value's shape (its runs of letters and digits replaced by their lengths),
   never the value; so is the value of a variable a secret option names (``--api-key-env VAR``), which a
   server may echo back. An export made later from a shell without the variable (the README's export after
   a crash) finds it again (:meth:`Redactor.learn_run`, :meth:`Redactor.discover`): a stretch of text of
   that shape, whole words, whose digest matches is learned like any other secret. A URL's password is not
   kept in config.json itself (:func:`without_url_passwords`: ``http://user:[redacted]@host/v1``);
5. what is drawn (the screenshot, the text screen, the charts) is drawn from redacted copies of the runs
   (:meth:`Redactor.record`), so a field or a line cut to its width can only cut the marker, never half a
   secret; and a drawn screen goes through :meth:`Redactor.screen`, which also removes what a cut left of a
   learned secret (a word ending with its start or starting with its end) and a token shape cut short.

A long text (a run.log or events.jsonl of hundreds of thousands of steps) is
scrubbed where it can change: every match of every pattern holds one of
:data:`TRIGGERS` on its first line, so only the lines holding one (and the few
after, for a value on the next line) go through the patterns, with the same
result as the whole text through them, in linear time.

The package, by job: :mod:`~tui.redact.rules` (what looks secret), :mod:`~tui.redact.scrub` (a
text through the patterns), :mod:`~tui.redact.redactor` (the :class:`Redactor`),
:mod:`~tui.redact.recorded` and :mod:`~tui.redact.run_record` (what a run records and how it is
found again), :mod:`~tui.redact.fragments` (what a cut left on a drawn screen),
:mod:`~tui.redact.as_json` (a .json or .jsonl file redacted as JSON, so it stays JSON) and
:mod:`~tui.redact.live` (what the live screen shows).
"""

from __future__ import annotations

from tui.redact.live import redacted_args, redacted_values
from tui.redact.recorded import RECORD_KEY, secret_shape, without_record
from tui.redact.redactor import Redactor
from tui.redact.rules import (ENV_ALLOW_EXACT, ENV_ALLOW_PREFIXES, MIN_FRAGMENT, MIN_LEARNED, REDACTED,
                                     env_allowed, is_secret_name)
from tui.redact.rules import LINEWISE_FROM as _LINEWISE_FROM  # noqa: F401 - the tests: line-wise vs whole
from tui.redact.run_record import record_for_run, without_url_passwords
from tui.redact.scrub import patterns as _patterns  # noqa: F401 - the tests' reference: a whole text

__all__ = ["ENV_ALLOW_EXACT", "ENV_ALLOW_PREFIXES", "MIN_FRAGMENT", "MIN_LEARNED", "RECORD_KEY", "REDACTED",
           "Redactor", "env_allowed", "is_secret_name", "record_for_run", "redacted_args", "redacted_values",
           "secret_shape", "without_record", "without_url_passwords"]
