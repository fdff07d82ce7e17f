"""The referee: a plan's purchase replayed hour by hour against the profile's demand, written apart from the
planning model so that it can check the model's cost (issue 29).

In: the profile, the purchase (units and hosts), the options with their prices and today. Out: a `Replay` (hourly
cost, who served each hour). It imports the base alone, never the model, the offers or the money, so it shares
no code path with what it checks."""
