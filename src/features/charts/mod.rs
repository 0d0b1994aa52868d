//! Charts on cards: what a card's picture shows ([`ChartSpec`], described by the tools),
//! drawing it ([`draw`], pure: a series in, PNG bytes out), the bounded store of drawn images
//! served under unguessable expiring paths ([`images`]), and fetching, drawing off the runtime
//! and publishing at `HEARTH_PUBLIC_URL` ([`publish`]).

pub mod draw;
pub mod images;
pub mod publish;

pub use crate::contract::chart::{CareDay, ChartSpec, ForecastDay, Period};
