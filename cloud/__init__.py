"""The AWS boundary that runner/, pricing/ and planner's account commands share: one client factory
and one error explainer (`cloud.aws`), and the names every AWS path uses (`cloud.reaper`, which is
also the scheduled reaper's code)."""
