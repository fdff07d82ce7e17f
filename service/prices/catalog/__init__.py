"""GET /v1/gpus and GET /v1/prices: the GPU facts and current prices plans are made from."""
