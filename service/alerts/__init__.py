"""Price and plan alerts: subscriptions, evaluation after a refresh, and reliable delivery."""
