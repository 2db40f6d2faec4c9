"""`cardbench backup DEST`: the run store, checkpoints, report bundles and chosen paths, as plain files with a
manifest of SHA-256 sums, to a local or mounted path or an rclone remote.

What a destination holds::

    DEST/
        LATEST                          the name of the newest complete backup, written last
        20261203T070000Z/               one complete backup (a snapshot), plain files:
            MANIFEST.sha256             `sha256sum -c MANIFEST.sha256` in this folder checks every file
            .cardbench-backup.json      sizes, times and sources: what the next backup compares against
            runs/<run id>/...           the run store
            checkpoints/<absolute path> --checkpoint DIRs named by the runs
            reports/<absolute path>     cardbench-report-*.zip in . and ./reports
            include/<absolute path>     --include PATH...

Why snapshots: a backup never writes into the previous one, so an interrupted backup (Ctrl+C, a dropped
session, a full destination, the instance going away) leaves the previous complete backup as it was,
and LATEST still names it. A second backup sends only files that changed: unchanged ones are hard-linked
from the previous snapshot (local) or copied from it on the remote by rclone (server-side where the
back end can). `sources` gathers what to back up, `manifest` writes and reads the manifest and
index, `local` and `remote` write a snapshot, `engine` runs one backup, `command` is the CLI.
UI-free and torch-free; the workbench's `b` key calls :func:`tui.backup.engine.run_backup` in a worker.
"""
