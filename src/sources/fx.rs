//! Exchange rates from open.er-api.com: one table based on USD, cached until the provider's next
//! update (at most an hour), from which any pair is computed locally.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;
use serde::Deserialize;

use super::{UpstreamError, join_url, send};

/// A rate table.
#[derive(Debug, Clone, Deserialize)]
pub struct RateTable {
    /// `success` or `error`.
    pub result: String,
    /// When the provider last updated the rates (Unix seconds).
    #[serde(default)]
    pub time_last_update_unix: Option<i64>,
    /// The base currency.
    #[serde(default)]
    pub base_code: Option<String>,
    /// Units of each currency per one unit of the base.
    #[serde(default)]
    pub rates: HashMap<String, f64>,
    /// The provider's error type, when `result` is `error`.
    #[serde(default, rename = "error-type")]
    pub error_type: Option<String>,
}

impl RateTable {
    /// The rate `from` → `to`, if both are known.
    pub fn rate(&self, from: &str, to: &str) -> Option<f64> {
        let f = self.rates.get(from).copied().filter(|r| r.is_finite() && *r > 0.0)?;
        let t = self.rates.get(to).copied().filter(|r| r.is_finite() && *r > 0.0)?;
        Some(t / f)
    }
}

/// The FX client.
#[derive(Clone)]
pub struct FxSource {
    http: reqwest::Client,
    base_url: String,
    cache: Cache<(), Arc<RateTable>>,
}

impl FxSource {
    /// A client for the given base URL.
    pub fn new(http: reqwest::Client, base_url: &str) -> Self {
        Self {
            http,
            base_url: base_url.to_string(),
            cache: Cache::builder().max_capacity(1).time_to_live(Duration::from_secs(3600)).build(),
        }
    }

    /// The current USD-based rate table.
    pub async fn rates(&self) -> Result<Arc<RateTable>, UpstreamError> {
        if let Some(table) = self.cache.get(&()).await {
            return Ok(table);
        }
        let url = join_url(&self.base_url, "/v6/latest/USD");
        let response = send(self.http.get(url)).await?;
        if !response.status.is_success() {
            return Err(UpstreamError::Status(response.status));
        }
        let table: RateTable = response.json()?;
        if table.result != "success" || table.rates.is_empty() {
            let why = table.error_type.unwrap_or_else(|| "no rates".into());
            return Err(UpstreamError::Reported(format!("the exchange-rate service said: {why}")));
        }
        let table = Arc::new(table);
        self.cache.insert((), table.clone()).await;
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_rates_are_computed_from_the_usd_table() {
        let table: RateTable = serde_json::from_str(
            r#"{"result":"success","base_code":"USD","rates":{"USD":1,"TWD":32.0,"JPY":160.0}}"#,
        )
        .expect("parses");
        assert_eq!(table.rate("USD", "TWD"), Some(32.0));
        assert_eq!(table.rate("JPY", "TWD"), Some(0.2));
        assert_eq!(table.rate("USD", "XXX"), None);
    }

    #[test]
    fn provider_error_shape_parses() {
        let table: RateTable =
            serde_json::from_str(r#"{"result": "error", "error-type": "unsupported-code"}"#)
                .expect("parses");
        assert_eq!(table.error_type.as_deref(), Some("unsupported-code"));
    }
}
