//! Price alerts: "tell me when 2330.TW rises to 1,500". The crossing state machine with its dead
//! band and cooldown ([`crossing`], pure), market hours, freshness and polling cadence
//! ([`market`]), alerts in words ([`describe`]), the push a fire becomes ([`render`]), the poller
//! that fetches each watched symbol once per tick and delivers each fire once ([`ops::poller`]),
//! what the buttons on an alert card do ([`actions`]), creating one ([`ops::create`]), and the cheaper
//! ways offered when an every-time alert would push the month over LINE's quota ([`cheaper`]).

pub mod actions;
pub mod cheaper;
pub mod crossing;
pub mod describe;
pub mod market;
pub mod ops;
pub mod render;
pub mod taps;
