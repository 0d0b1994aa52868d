//! Formatting shared by tools, cards and pushes: amounts of money.

/// An amount with thousands separators and two decimals at most.
pub fn money(value: f64) -> String {
    let rounded = format!("{value:.2}");
    let (int, frac) = rounded.split_once('.').unwrap_or((&rounded, "00"));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() { format!("{sign}{grouped}") } else { format!("{sign}{grouped}.{frac}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_groups_thousands_and_trims_zeros() {
        assert_eq!(money(3190.0), "3,190");
        assert_eq!(money(1234567.891), "1,234,567.89");
        assert_eq!(money(0.5), "0.5");
        assert_eq!(money(-1000.0), "-1,000");
    }
}
