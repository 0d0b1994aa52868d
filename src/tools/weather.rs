//! `weather`: the forecast for a place, today and the next days, with a card and follow-up chips.
//! With no place named it is the place this chat last asked about, else the family's home
//! (`HEARTH_HOME_LOCATION`), so "要帶傘嗎" just works.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::chart::{ChartSpec, ForecastDay};
use crate::contract::{Card, CardRow, Chip, Tone, Tool, ToolCtx, ToolError};
use crate::features::settings::{ChatSettings, LastPlace};
use crate::platform::i18n::Lang;
use crate::sources::weather::{WeatherSource, describe_code};

/// Arguments of `weather`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// As written ("台北", "Tokyo").
    pub location: Option<String>,
    /// Days from today through the last day asked: 1 today, 2 tomorrow, 3 後天; 這週末 to Sunday. Default 3.
    pub days: Option<u8>,
}

/// One day of the forecast.
#[derive(Debug, Clone, Serialize)]
pub struct Day {
    /// Local date, `YYYY-MM-DD`.
    pub date: String,
    /// The weather in words.
    pub summary: Option<String>,
    /// Highest temperature, °C.
    pub temp_max_c: Option<f64>,
    /// Lowest temperature, °C.
    pub temp_min_c: Option<f64>,
    /// Chance of rain, %.
    pub rain_probability_pct: Option<f64>,
}

/// The result of `weather`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The place the forecast is for.
    pub location: String,
    /// Its country.
    pub country: Option<String>,
    /// The place's time zone.
    pub timezone: String,
    /// Current temperature, °C.
    pub now_temp_c: Option<f64>,
    /// Current conditions in words.
    pub now_summary: Option<String>,
    /// Today first, then the following days.
    pub days: Vec<Day>,
    /// Where the data comes from.
    pub source: &'static str,
}

/// The weather tool.
pub struct Weather {
    source: WeatherSource,
    settings: ChatSettings,
    home: Option<String>,
}

impl Weather {
    /// The tool over an Open-Meteo client; the place last asked about is kept in the chat's
    /// `settings`, and `home` is the place when none was ever named.
    pub fn new(source: WeatherSource, settings: ChatSettings, home: Option<String>) -> Self {
        Self { source, settings, home }
    }

    /// The place asked about: the one named, else the chat's last, else home.
    async fn place(&self, ctx: &ToolCtx, named: Option<&str>) -> Result<String, ToolError> {
        if let Some(named) = named.map(str::trim).filter(|n| !n.is_empty()) {
            return Ok(named.to_string());
        }
        let chat = &ctx.conversation.id;
        let last = self.settings.get::<LastPlace>(chat, None).await.map(|p| p.map(|p| p.0));
        let last = last.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the chat's last place is unavailable");
            None
        });
        last.or_else(|| self.home.clone()).ok_or_else(|| {
            ToolError::InvalidArgs("no place was named and no home is set; ask which city".into())
        })
    }
}

impl Tool for Weather {
    const NAME: &'static str = "weather";
    const DESCRIPTION: &'static str = "Forecast: now, and each day's high/low and chance of rain (7 days), for weather, rain, umbrellas (要帶傘嗎), clothes. No place named: location null; do not ask which city.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let location = self.place(ctx, args.location.as_deref()).await?;
        let location = location.as_str();
        if location.chars().count() > 60 {
            return Err(ToolError::InvalidArgs("location must be a place name".into()));
        }
        let days = args.days.unwrap_or(3);
        if !(1..=7).contains(&days) {
            return Err(ToolError::InvalidArgs("days must be between 1 and 7".into()));
        }
        const SERVICE: &str = "the weather service";
        let place = self
            .source
            .geocode(location)
            .await
            .map_err(|e| ToolError::upstream(SERVICE, e))?
            .ok_or_else(|| {
                ToolError::NotFound(format!("no place called {location:?} was found"))
            })?;
        let fallback_tz = ctx.tz.iana_name().unwrap_or("Asia/Taipei");
        let forecast = self
            .source
            .forecast(&place, days, fallback_tz)
            .await
            .map_err(|e| ToolError::upstream(SERVICE, e))?;
        if args.location.is_some()
            && let Err(e) = self.settings.keep(ctx, &LastPlace(location.to_string())).await
        {
            tracing::warn!(error = %e, "the chat's last place was not kept");
        }
        let zh = ctx.lang == Lang::ZhTw;
        let d = &forecast.daily;
        let days = d
            .time
            .iter()
            .enumerate()
            .map(|(i, date)| Day {
                date: date.clone(),
                summary: at(&d.weather_code, i).map(|c| describe_code(c, zh).to_string()),
                temp_max_c: at(&d.temperature_2m_max, i),
                temp_min_c: at(&d.temperature_2m_min, i),
                rain_probability_pct: at(&d.precipitation_probability_max, i),
            })
            .collect();
        let current = forecast.current.as_ref();
        Ok(Output {
            location: place.name.clone(),
            country: place.country.clone(),
            timezone: forecast.timezone.or(place.timezone).unwrap_or_else(|| fallback_tz.into()),
            now_temp_c: current.and_then(|c| c.temperature_2m),
            now_summary: current
                .and_then(|c| c.weather_code)
                .map(|c| describe_code(c, zh).to_string()),
            days,
            source: "Open-Meteo",
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let mut card = Card::new(format!("{} {}", out.location, lang.pick("天氣", "weather")));
        if let (Some(t), Some(s)) = (out.now_temp_c, &out.now_summary) {
            card.subtitle = Some(format!("{} {s} {t:.0}°C", lang.pick("現在", "Now")));
        }
        for (i, day) in out.days.iter().enumerate() {
            let label = day_label(lang, i, &day.date);
            let temps = match (day.temp_min_c, day.temp_max_c) {
                (Some(lo), Some(hi)) => format!("{lo:.0}–{hi:.0}°C"),
                _ => "–".into(),
            };
            let rain = day.rain_probability_pct.map(|p| format!(" ☔{p:.0}%")).unwrap_or_default();
            let summary = day.summary.as_deref().unwrap_or("");
            let rainy = day.rain_probability_pct.is_some_and(|p| p >= 60.0);
            card.rows.push(
                CardRow::new(label, format!("{summary} {temps}{rain}").trim().to_string())
                    .toned(rainy.then_some(Tone::Warning)),
            );
        }
        card.footnote = Some("Open-Meteo".into());
        if out.days.len() >= 2 {
            let days = out
                .days
                .iter()
                .map(|d| ForecastDay {
                    label: d.date.get(5..).unwrap_or(&d.date).replace('-', "/"),
                    high: d.temp_max_c,
                    low: d.temp_min_c,
                    rain_pct: d.rain_probability_pct,
                })
                .collect();
            card.chart = Some(ChartSpec::Forecast { place: out.location.clone(), days });
        }
        Some(card)
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        let place = &out.location;
        match ctx.lang {
            Lang::ZhTw => vec![
                Chip::new("明天呢？", format!("{place}明天天氣如何？")),
                Chip::new("後天呢？", format!("{place}後天天氣如何？")),
                Chip::new("要帶傘嗎？", format!("{place}這幾天需要帶傘嗎？")),
            ],
            Lang::En => vec![
                Chip::new("Tomorrow?", format!("What's the weather in {place} tomorrow?")),
                Chip::new("Day after?", format!("Weather in {place} the day after tomorrow?")),
                Chip::new("Umbrella?", format!("Do I need an umbrella in {place} these days?")),
            ],
        }
    }
}

fn at<T: Copy>(values: &[Option<T>], i: usize) -> Option<T> {
    values.get(i).copied().flatten()
}

fn day_label(lang: Lang, index: usize, date: &str) -> String {
    let short = date.get(5..).unwrap_or(date).replace('-', "/");
    let name = match (lang, index) {
        (Lang::ZhTw, 0) => "今天",
        (Lang::ZhTw, 1) => "明天",
        (Lang::ZhTw, 2) => "後天",
        (Lang::En, 0) => "Today",
        (Lang::En, 1) => "Tomorrow",
        _ => return short,
    };
    format!("{name} {short}")
}
