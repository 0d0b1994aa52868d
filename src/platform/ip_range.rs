//! Address ranges as settings write them (`HEARTH_TRUSTED_PROXIES`): one address (`10.0.0.7`,
//! `::1`) or a CIDR block (`10.0.0.0/8`, `fd00::/8`), parsed strictly — no host names, no
//! ports, no bits set past the prefix, no prefix longer than the address — so a typo is refused
//! at start-up instead of trusting more (or fewer) addresses than meant.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use ipnet::IpNet;

/// An address or a block of addresses (an [`IpNet`] read strictly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange(IpNet);

/// Why a range was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IpRangeError {
    /// Not an IP address.
    #[error("{0:?} is not an IP address (write 10.0.0.7, 10.0.0.0/8 or fd00::/8)")]
    Address(String),
    /// The prefix is not a number within the address's length.
    #[error("{0:?}: the prefix must be a number from 0 to {1}")]
    Prefix(String, u8),
    /// Bits are set past the prefix (`10.0.0.1/8`): which block was meant is unclear.
    #[error("{0:?}: the address has bits set past its prefix (did you mean {1}?)")]
    HostBits(String, IpRange),
}

impl IpRange {
    /// True when `ip` is in the range (an IPv4 address written as IPv6, `::ffff:10.0.0.7`,
    /// counts as that IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.contains(&ip.to_canonical())
    }
}

impl FromStr for IpRange {
    type Err = IpRangeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let Some((addr, prefix)) = text.split_once('/') else {
            let addr: IpAddr = text.parse().map_err(|_| IpRangeError::Address(text.to_string()))?;
            return Ok(Self(IpNet::from(addr)));
        };
        let base: IpAddr = addr.parse().map_err(|_| IpRangeError::Address(text.to_string()))?;
        let len = if base.is_ipv4() { 32 } else { 128 };
        let prefix = Some(prefix)
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|p| p.parse::<u8>().ok())
            .ok_or_else(|| IpRangeError::Prefix(text.to_string(), len))?;
        let net =
            IpNet::new(base, prefix).map_err(|_| IpRangeError::Prefix(text.to_string(), len))?;
        if net.trunc() != net {
            return Err(IpRangeError::HostBits(text.to_string(), Self(net.trunc())));
        }
        Ok(Self(net))
    }
}

impl fmt::Display for IpRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.prefix_len() == self.0.max_prefix_len() {
            write!(f, "{}", self.0.addr())
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// A list of ranges, as one setting writes them: comma-separated, empty for none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IpRanges(Vec<IpRange>);

impl IpRanges {
    /// True when `ip` is in one of the ranges.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|range| range.contains(ip))
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromStr for IpRanges {
    type Err = IpRangeError;

    /// Parses `10.0.0.7, 10.1.0.0/16`; an empty text is no range, an empty item is refused.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        text.split(',').map(str::parse).collect::<Result<_, _>>().map(Self)
    }
}

impl fmt::Display for IpRanges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let all: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&all.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn one_address_contains_only_itself() {
        let one: IpRange = "10.0.0.7".parse().expect("range");
        assert!(one.contains(ip("10.0.0.7")));
        assert!(one.contains(ip("::ffff:10.0.0.7")), "the same address written as IPv6");
        assert!(!one.contains(ip("10.0.0.8")));
        assert_eq!(one.to_string(), "10.0.0.7");
        let v6: IpRange = " ::1 ".parse().expect("range");
        assert!(v6.contains(ip("::1")) && !v6.contains(ip("127.0.0.1")));
    }

    #[test]
    fn a_block_contains_the_addresses_under_its_prefix() {
        let block: IpRange = "10.0.0.0/8".parse().expect("range");
        assert!(block.contains(ip("10.255.3.4")) && block.contains(ip("10.0.0.0")));
        assert!(!block.contains(ip("11.0.0.1")) && !block.contains(ip("fd00::1")));
        let v6: IpRange = "fd00::/8".parse().expect("range");
        assert!(v6.contains(ip("fd12:3456::1")) && !v6.contains(ip("fe80::1")));
        let all: IpRange = "0.0.0.0/0".parse().expect("range");
        assert!(all.contains(ip("203.0.113.9")) && !all.contains(ip("::1")));
        assert_eq!(block.to_string(), "10.0.0.0/8");
    }

    #[test]
    fn anything_but_an_address_or_an_exact_block_is_refused() {
        for bad in [
            "",
            "proxy.example",
            "10.0.0.7:8080",
            "10.0.0",
            "10.0.0.0/",
            "10.0.0.0/33",
            "10.0.0.0/+8",
            "10.0.0.0/8/8",
            "::/129",
            "10.0.0.0/-1",
        ] {
            assert!(bad.parse::<IpRange>().is_err(), "{bad:?}");
        }
        let err = "10.0.0.1/8".parse::<IpRange>().expect_err("host bits");
        assert!(err.to_string().contains("10.0.0.0/8"), "{err}");
        let err = "fd00::1/8".parse::<IpRange>().expect_err("host bits");
        assert!(err.to_string().contains("fd00::/8"), "{err}");
    }

    #[test]
    fn a_list_is_comma_separated_empty_for_none_and_refused_whole_for_one_bad_item() {
        let none: IpRanges = "  ".parse().expect("none");
        assert!(none.is_empty() && !none.contains(ip("127.0.0.1")));
        let two: IpRanges = "127.0.0.1, 10.1.0.0/16".parse().expect("two");
        assert!(two.contains(ip("127.0.0.1")) && two.contains(ip("10.1.2.3")));
        assert!(!two.contains(ip("10.2.0.1")));
        assert_eq!(two.to_string(), "127.0.0.1,10.1.0.0/16");
        for bad in ["127.0.0.1,", "127.0.0.1,,10.0.0.1", "127.0.0.1 10.0.0.1", "127.0.0.1,lb"] {
            assert!(bad.parse::<IpRanges>().is_err(), "{bad:?}");
        }
    }
}
