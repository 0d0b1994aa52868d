//! Taiwan's 22 counties and cities as the official alerts name them: the `Taiwan_Geocode_103`
//! codes CAP documents carry (two digits for the special municipalities, five for the others;
//! a town's seven-digit code starts with its county's), the Chinese name, and the names a family
//! writes ("台北", "Taipei"). [`Place::resolve`] turns a chat's place into its county and, when
//! the place names one, its town.

use serde::{Deserialize, Serialize};

/// A county or city.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct County {
    /// Its `Taiwan_Geocode_103` code.
    pub code: &'static str,
    /// Its official name (臺北市).
    pub name: &'static str,
    /// Its English name.
    pub english: &'static str,
}

/// The counties and cities: code, official name, English name.
pub const COUNTIES: &[County] = &[
    County { code: "63", name: "臺北市", english: "Taipei" },
    County { code: "64", name: "高雄市", english: "Kaohsiung" },
    County { code: "65", name: "新北市", english: "New Taipei" },
    County { code: "66", name: "臺中市", english: "Taichung" },
    County { code: "67", name: "臺南市", english: "Tainan" },
    County { code: "68", name: "桃園市", english: "Taoyuan" },
    County { code: "10002", name: "宜蘭縣", english: "Yilan" },
    County { code: "10004", name: "新竹縣", english: "Hsinchu County" },
    County { code: "10005", name: "苗栗縣", english: "Miaoli" },
    County { code: "10007", name: "彰化縣", english: "Changhua" },
    County { code: "10008", name: "南投縣", english: "Nantou" },
    County { code: "10009", name: "雲林縣", english: "Yunlin" },
    County { code: "10010", name: "嘉義縣", english: "Chiayi County" },
    County { code: "10013", name: "屏東縣", english: "Pingtung" },
    County { code: "10014", name: "臺東縣", english: "Taitung" },
    County { code: "10015", name: "花蓮縣", english: "Hualien" },
    County { code: "10016", name: "澎湖縣", english: "Penghu" },
    County { code: "10017", name: "基隆市", english: "Keelung" },
    County { code: "10018", name: "新竹市", english: "Hsinchu" },
    County { code: "10020", name: "嘉義市", english: "Chiayi" },
    County { code: "09020", name: "金門縣", english: "Kinmen" },
    County { code: "09007", name: "連江縣", english: "Lienchiang" },
];

/// Other names families use, each for the county named: short Chinese names (the city where a
/// county and a city share one), and English spellings.
const ALIASES: &[(&str, &str)] = &[
    ("新北", "新北市"),
    ("臺北", "臺北市"),
    ("桃園", "桃園市"),
    ("臺中", "臺中市"),
    ("臺南", "臺南市"),
    ("高雄", "高雄市"),
    ("基隆", "基隆市"),
    ("新竹", "新竹市"),
    ("苗栗", "苗栗縣"),
    ("彰化", "彰化縣"),
    ("南投", "南投縣"),
    ("雲林", "雲林縣"),
    ("嘉義", "嘉義市"),
    ("屏東", "屏東縣"),
    ("宜蘭", "宜蘭縣"),
    ("花蓮", "花蓮縣"),
    ("臺東", "臺東縣"),
    ("澎湖", "澎湖縣"),
    ("金門", "金門縣"),
    ("連江", "連江縣"),
    ("馬祖", "連江縣"),
    ("new taipei", "新北市"),
    ("hsinchu county", "新竹縣"),
    ("chiayi county", "嘉義縣"),
    ("taipei", "臺北市"),
    ("taoyuan", "桃園市"),
    ("taichung", "臺中市"),
    ("tainan", "臺南市"),
    ("kaohsiung", "高雄市"),
    ("keelung", "基隆市"),
    ("hsinchu", "新竹市"),
    ("miaoli", "苗栗縣"),
    ("changhua", "彰化縣"),
    ("nantou", "南投縣"),
    ("yunlin", "雲林縣"),
    ("chiayi", "嘉義市"),
    ("pingtung", "屏東縣"),
    ("yilan", "宜蘭縣"),
    ("ilan", "宜蘭縣"),
    ("hualien", "花蓮縣"),
    ("taitung", "臺東縣"),
    ("penghu", "澎湖縣"),
    ("kinmen", "金門縣"),
    ("lienchiang", "連江縣"),
    ("matsu", "連江縣"),
];

/// `text` with 台 written 臺, as official names write it.
pub fn official_spelling(text: &str) -> String {
    text.replace('台', "臺")
}

/// The county with this official name.
pub fn by_name(name: &str) -> Option<&'static County> {
    COUNTIES.iter().find(|c| c.name == name)
}

/// The county a `Taiwan_Geocode_103` code (of the county, or of one of its towns) belongs to.
pub fn by_code(code: &str) -> Option<&'static County> {
    let code = code.trim();
    COUNTIES.iter().find(|c| match code.len() {
        2 | 5 => code == c.code,
        7 => code.is_ascii() && code.starts_with(c.code),
        _ => false,
    })
}

/// The county an area's written name starts with (臺東縣綠島鄉), and the rest of the name (the
/// town, when there is one).
pub fn split_area(desc: &str) -> Option<(&'static County, String)> {
    let desc = official_spelling(desc.trim());
    let county = COUNTIES.iter().find(|c| desc.starts_with(c.name))?;
    Some((county, desc[county.name.len()..].trim().to_string()))
}

/// A chat's place, as the alerts see it: a county, and a town when the place names one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// The county's code.
    pub county_code: String,
    /// The county's official name.
    pub county: String,
    /// The town (板橋區, 竹北市), when the place names one.
    pub town: Option<String>,
}

impl Place {
    /// The county and town `place` ("台北", "新北市板橋區", "Hsinchu County") is in; `None` for a
    /// place outside Taiwan or one not recognised.
    pub fn resolve(place: &str) -> Option<Place> {
        let written = official_spelling(place.trim());
        let lower = written.to_lowercase();
        // An official name first (新竹縣 is not 新竹市), then the earliest alias.
        let (county, end) = match COUNTIES.iter().find_map(|c| lower.find(c.name).map(|i| (c, i))) {
            Some((c, i)) => (c, i + c.name.len()),
            None => {
                let (at, alias, name) = ALIASES
                    .iter()
                    .filter_map(|(alias, name)| {
                        find_word(&lower, alias).map(|i| (i, *alias, *name))
                    })
                    .min_by_key(|(i, alias, _)| (*i, std::cmp::Reverse(alias.len())))?;
                (by_name(name)?, at + alias.len())
            }
        };
        let rest = lower[end..].trim();
        let town = rest
            .char_indices()
            .find(|(_, c)| matches!(c, '區' | '鄉' | '鎮' | '市'))
            .map(|(i, c)| rest[..i + c.len_utf8()].to_string())
            .filter(|t| t.chars().count() >= 2);
        Some(Place { county_code: county.code.to_string(), county: county.name.to_string(), town })
    }

    /// How the place is written: 新北市板橋區, 臺北市.
    pub fn label(&self) -> String {
        format!("{}{}", self.county, self.town.as_deref().unwrap_or(""))
    }
}

/// Where `alias` is in `text`: anywhere for a Chinese name, as a whole word for an English one
/// ("ilan" is not in "milan").
fn find_word(text: &str, alias: &str) -> Option<usize> {
    if !alias.is_ascii() {
        return text.find(alias);
    }
    text.match_indices(alias).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + alias.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphabetic())
            && !after.is_some_and(|c| c.is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(place: &str) -> Option<(String, Option<String>)> {
        Place::resolve(place).map(|p| (p.county, p.town))
    }

    #[test]
    fn places_resolve_to_their_county_and_town_in_either_spelling() {
        assert_eq!(resolved("台北"), Some(("臺北市".into(), None)));
        assert_eq!(resolved("臺北市"), Some(("臺北市".into(), None)));
        assert_eq!(resolved("新北市板橋區"), Some(("新北市".into(), Some("板橋區".into()))));
        assert_eq!(resolved("新北烏來區"), Some(("新北市".into(), Some("烏來區".into()))));
        assert_eq!(resolved("新竹縣竹北市"), Some(("新竹縣".into(), Some("竹北市".into()))));
        assert_eq!(resolved("新竹"), Some(("新竹市".into(), None)));
        assert_eq!(resolved("Taipei"), Some(("臺北市".into(), None)));
        assert_eq!(resolved("New Taipei City"), Some(("新北市".into(), None)));
        assert_eq!(resolved("Hsinchu County"), Some(("新竹縣".into(), None)));
        assert_eq!(resolved("台東縣綠島鄉"), Some(("臺東縣".into(), Some("綠島鄉".into()))));
        assert_eq!(resolved("Tokyo"), None);
        assert_eq!(resolved("Milan"), None, "ilan only as a word");
        assert_eq!(resolved("Matsumoto"), None);
    }

    #[test]
    fn geocodes_of_counties_and_towns_find_their_county() {
        assert_eq!(by_code("63").map(|c| c.name), Some("臺北市"));
        assert_eq!(by_code("6502900").map(|c| c.name), Some("新北市"));
        assert_eq!(by_code("1001411").map(|c| c.name), Some("臺東縣"));
        assert_eq!(by_code("10015").map(|c| c.name), Some("花蓮縣"));
        assert_eq!(by_code("0900701").map(|c| c.name), Some("連江縣"));
        assert_eq!(by_code("99"), None);
        assert_eq!(
            split_area("台東縣綠島鄉").map(|(c, t)| (c.name, t)),
            Some(("臺東縣", "綠島鄉".to_string()))
        );
    }
}
