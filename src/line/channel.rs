//! What LINE knows about the channel itself, read by `hearth doctor` and set by `hearth setup`:
//! the bot's profile (which proves the access token), the webhook URL registered in the console
//! and whether it is on, and LINE's own test request to that URL.

use serde::{Deserialize, Serialize};

use super::client::{LineClient, LineError};

/// `GET /v2/bot/info`: the bot behind the access token.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BotInfo {
    /// The bot's user id (the `destination` of its webhooks).
    pub user_id: String,
    /// The basic id (`@123abcd`) people add it by.
    pub basic_id: String,
    /// The display name.
    pub display_name: String,
}

/// `GET /v2/bot/channel/webhook/endpoint`: the webhook URL set in the console.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct WebhookEndpoint {
    /// The URL (empty when none is set).
    #[serde(default)]
    pub endpoint: String,
    /// Whether "Use webhook" is on.
    pub active: bool,
}

/// `POST /v2/bot/channel/webhook/test`: how the webhook URL answered LINE's test event.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookTest {
    /// True when the URL answered 200.
    #[serde(default)]
    pub success: bool,
    /// The status it answered (0 or less: no answer at all).
    pub status_code: i64,
    /// LINE's short reason.
    #[serde(default)]
    pub reason: String,
    /// LINE's detail.
    #[serde(default)]
    pub detail: String,
}

#[derive(Serialize)]
struct EndpointBody<'a> {
    endpoint: &'a str,
}

#[derive(Serialize)]
struct TestBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    endpoint: Option<&'a str>,
}

impl LineClient {
    /// The bot behind the access token; a refused token is [`LineError::Rejected`] with `401`.
    pub async fn bot_info(&self) -> Result<BotInfo, LineError> {
        self.get_json("/v2/bot/info").await
    }

    /// The webhook URL registered in the console, and whether it is in use.
    pub async fn webhook_endpoint(&self) -> Result<WebhookEndpoint, LineError> {
        self.get_json("/v2/bot/channel/webhook/endpoint").await
    }

    /// Registers `endpoint` as the webhook URL (`PUT /v2/bot/channel/webhook/endpoint`). LINE
    /// has no request that turns "Use webhook" on: the console does.
    pub async fn set_webhook_endpoint(&self, endpoint: &str) -> Result<(), LineError> {
        let path = "/v2/bot/channel/webhook/endpoint";
        self.succeed(self.request(reqwest::Method::PUT, path).json(&EndpointBody { endpoint }))
            .await
    }

    /// Has LINE send its test event to `endpoint` (the registered URL when `None`).
    pub async fn test_webhook(&self, endpoint: Option<&str>) -> Result<WebhookTest, LineError> {
        self.post_json("/v2/bot/channel/webhook/test", &TestBody { endpoint }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_answers_parse_in_their_documented_shapes() {
        let info: BotInfo = serde_json::from_str(
            r#"{"userId":"Ub9952f8","basicId":"@216ru...","displayName":"Example name","pictureUrl":"https://obs.line-apps.com/1","chatMode":"chat","markAsReadMode":"manual"}"#,
        )
        .expect("bot info");
        assert_eq!(info.display_name, "Example name");
        let hook: WebhookEndpoint =
            serde_json::from_str(r#"{"endpoint":"https://example.com/test","active":true}"#)
                .expect("endpoint");
        assert!(hook.active);
        let test: WebhookTest = serde_json::from_str(
            r#"{"success":true,"timestamp":"2020-09-30T05:38:20.031Z","statusCode":200,"reason":"OK","detail":"200"}"#,
        )
        .expect("test");
        assert_eq!((test.success, test.status_code), (true, 200));
    }
}
