"""`cardbench ready`: should this model move to this card? (issue 38 item 4)

    steps       what runs: each question's sub-run, a registered workload by name, sized for the CPU or a card
    runs        the sub-runs through the headless suite's runner, each within its share of the budget
    rows        each question's row from the results: measured, rated or bound, ratio, verdict and evidence
    data_read   --data: a timed read of the user's own training data
    readiness   the record kept as readiness.json in each run (and so in the bundle)
    against     --against: the reference's readiness, its refusals, the ratio rows and the price-performance row
    table       the readiness said in English or Chinese: terminal lines and the report's blocks

The command itself is `tui.cli.ready`. Nothing here imports torch or Textual; tui/report never imports this package
(the report takes the table as its caller's section), so the two never lean on each other.
"""
