"""The operator-coverage scan (issue 11): which aten ops of a model run right on this device, in which precision."""
