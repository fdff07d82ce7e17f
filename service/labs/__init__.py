"""Labs, their API keys, who is calling (a lab, or nobody when auth is off) and per-key rate limits."""
