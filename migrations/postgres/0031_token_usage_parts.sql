-- What a family's LLM use costs: beside each day's budget count (token_usage.tokens), the turns
-- answered and the tokens in their parts — input (prompt, the cached ones included), the input
-- the provider served from its prompt cache, and output — per chat and for the whole service
-- ('*'). `hearth usage` sums them by month; the rows are kept for about thirteen months.
ALTER TABLE token_usage ADD COLUMN turns BIGINT NOT NULL DEFAULT 0;
ALTER TABLE token_usage ADD COLUMN input_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE token_usage ADD COLUMN cached_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE token_usage ADD COLUMN output_tokens BIGINT NOT NULL DEFAULT 0;
