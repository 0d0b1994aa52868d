//! What the buttons of the price alerts cards carry: each a tap's data, signed into
//! its postback; what a tap does is in [`super::actions`].

use serde::{Deserialize, Serialize};

/// ❌: cancel price alert `id` (fired alerts, the list, the confirmation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CancelPriceAlert {
    /// The alert.
    pub id: i64,
}

/// 🔕: mute every-time alert `id` for [`super::ops::MUTE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MutePriceAlert {
    /// The alert.
    pub id: i64,
}
