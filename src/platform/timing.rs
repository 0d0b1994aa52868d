//! Spans around the calls a slow turn is made of (the model, each tool, each LINE API call):
//! the call runs in its span, the span records the call's outcome, and a last line in it says
//! how long the call took (at debug level), so a turn's log can be taken apart call by call.

use std::fmt::Display;
use std::time::Instant;

use tracing::{Instrument, Span};

/// Runs `call` in `span` (which declares an empty `outcome` field), records on the span what
/// `outcome` says of the result, and logs the call's duration in it.
pub async fn timed<T, D: Display>(
    span: Span,
    call: impl Future<Output = T>,
    outcome: impl FnOnce(&T) -> D,
) -> T {
    let started = Instant::now();
    let result = call.instrument(span.clone()).await;
    span.record("outcome", tracing::field::display(outcome(&result)));
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    span.in_scope(|| tracing::debug!(elapsed_ms, "call done"));
    result
}

#[cfg(test)]
mod tests {
    use super::timed;

    #[tokio::test]
    async fn the_result_passes_through_untouched() {
        let span = tracing::info_span!("call", outcome = tracing::field::Empty);
        let answer = timed(span, async { 42 }, |n| if *n == 42 { "ok" } else { "odd" }).await;
        assert_eq!(answer, 42);
    }
}
