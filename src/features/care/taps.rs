//! What the buttons of the care cards carry: each a tap's data, signed into
//! its postback; what a tap does is in [`super::actions`].

use serde::{Deserialize, Serialize};

/// ✅ 吃了 (the one asked) or 她吃了 (a caregiver): dose `dose` was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareTaken {
    /// The dose.
    pub dose: i64,
}

/// ⏰ 等一下: ask again in 20 minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareLater {
    /// The dose.
    pub dose: i64,
}

/// 我來打電話: the tapper takes it in hand; nobody else is told more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareOnIt {
    /// The dose.
    pub dose: i64,
}

/// ✅ 開始 on a draft plan's card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareStart {
    /// The plan.
    pub plan: i64,
}

/// 🛑 停止並刪除紀錄: stop the plan and delete its doses and readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareStop {
    /// The plan.
    pub plan: i64,
}
