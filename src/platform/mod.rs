//! What every layer may use: settings ([`config`]), time ([`clock`]), language ([`i18n`]), who a
//! chat is ([`conversation`]), amounts as the family reads them ([`format`](mod@format)), Prometheus
//! counters ([`metrics`]), address ranges in settings ([`ip_range`]), a fair line for scarce places ([`places`]), trying work again ([`retry`]), text lengths and cuts a reader sees ([`text`]) and the one TLS configuration of every outgoing client ([`tls`]).

pub mod clock;
pub mod config;
pub mod conversation;
pub mod format;
pub mod i18n;
pub mod ip_range;
pub mod metrics;
pub mod places;
pub mod retry;
pub mod text;
pub mod timing;
pub mod tls;
