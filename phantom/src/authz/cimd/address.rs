//! The addresses a client metadata document is never fetched from: every class that reaches the
//! server's own host, its network or its cloud's metadata service, in IPv4 and IPv6, and IPv4
//! addresses carried inside IPv6 ones.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A class of addresses that is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// `0.0.0.0`, `::`.
    Unspecified,
    /// `0.0.0.0/8` apart from `0.0.0.0`: "this network".
    ThisNetwork,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918).
    Private,
    /// `100.64.0.0/10`: carrier-grade NAT (RFC 6598).
    Shared,
    /// `169.254.0.0/16` (where cloud metadata services answer), `fe80::/10`.
    LinkLocal,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `240.0.0.0/4` apart from the broadcast address.
    Reserved,
    /// `fc00::/7` (RFC 4193).
    UniqueLocal,
    /// `fec0::/10`, deprecated but still routed by some networks.
    SiteLocal,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Unspecified => "an unspecified address",
            Self::ThisNetwork => "a \"this network\" address (0.0.0.0/8)",
            Self::Loopback => "a loopback address",
            Self::Private => "a private address (10/8, 172.16/12, 192.168/16)",
            Self::Shared => "a shared (carrier-grade NAT) address (100.64/10)",
            Self::LinkLocal => "a link-local address (169.254/16, fe80::/10)",
            Self::Multicast => "a multicast address",
            Self::Broadcast => "the broadcast address",
            Self::Reserved => "a reserved address (240/4)",
            Self::UniqueLocal => "a unique-local address (fc00::/7)",
            Self::SiteLocal => "a site-local address (fec0::/10)",
        })
    }
}

/// Why an address is refused: its class, and the form that carried an IPv4 address inside an
/// IPv6 one (`IPv4-mapped`, …); `None` for an address that may be fetched from.
pub(crate) type Refused = Option<(Class, Option<&'static str>)>;

/// Why `ip` is refused.
pub(crate) fn refused(ip: IpAddr) -> Refused {
    match ip {
        IpAddr::V4(v4) => v4_class(v4).map(|class| (class, None)),
        IpAddr::V6(v6) => v6_class(v6),
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<Class> {
    let [a, b, ..] = ip.octets();
    Some(match (a, b) {
        _ if ip.is_unspecified() => Class::Unspecified,
        (0, _) => Class::ThisNetwork,
        (127, _) => Class::Loopback,
        (10, _) | (172, 16..=31) | (192, 168) => Class::Private,
        (100, 64..=127) => Class::Shared,
        (169, 254) => Class::LinkLocal,
        (224..=239, _) => Class::Multicast,
        _ if ip.is_broadcast() => Class::Broadcast,
        (240..=255, _) => Class::Reserved,
        _ => return None,
    })
}

fn v6_class(ip: Ipv6Addr) -> Refused {
    let segments = ip.segments();
    let embedded = |form: &'static str, v4: Ipv4Addr| v4_class(v4).map(|class| (class, Some(form)));
    let v4_at = |high: u16, low: u16| {
        let [a, b] = high.to_be_bytes();
        let [c, d] = low.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if ip.is_unspecified() {
        return Some((Class::Unspecified, None));
    }
    if ip.is_loopback() {
        return Some((Class::Loopback, None));
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return embedded("IPv4-mapped", v4);
    }
    match segments {
        // `::a.b.c.d`, IPv4-compatible (deprecated, still understood by some stacks).
        [0, 0, 0, 0, 0, 0, high, low] => return embedded("IPv4-compatible", v4_at(high, low)),
        // `64:ff9b::a.b.c.d`: NAT64's well-known prefix reaches the IPv4 address.
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => return embedded("NAT64", v4_at(high, low)),
        // `2002:aabb:ccdd::/48`: 6to4 reaches the IPv4 address in its prefix.
        [0x2002, high, low, ..] => return embedded("6to4", v4_at(high, low)),
        _ => {}
    }
    let first = segments[0];
    let class = if first & 0xff00 == 0xff00 {
        Class::Multicast
    } else if first & 0xffc0 == 0xfe80 {
        Class::LinkLocal
    } else if first & 0xffc0 == 0xfec0 {
        Class::SiteLocal
    } else if first & 0xfe00 == 0xfc00 {
        Class::UniqueLocal
    } else {
        return None;
    };
    Some((class, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_is_refused_and_public_addresses_are_not() {
        let cases: &[(&str, Refused)] = &[
            ("0.0.0.0", Some((Class::Unspecified, None))),
            ("0.1.2.3", Some((Class::ThisNetwork, None))),
            ("127.0.0.1", Some((Class::Loopback, None))),
            ("127.255.0.9", Some((Class::Loopback, None))),
            ("10.0.0.5", Some((Class::Private, None))),
            ("172.16.0.1", Some((Class::Private, None))),
            ("172.31.255.255", Some((Class::Private, None))),
            ("192.168.1.1", Some((Class::Private, None))),
            ("100.64.0.1", Some((Class::Shared, None))),
            ("100.127.255.254", Some((Class::Shared, None))),
            ("169.254.169.254", Some((Class::LinkLocal, None))),
            ("224.0.0.1", Some((Class::Multicast, None))),
            ("255.255.255.255", Some((Class::Broadcast, None))),
            ("240.0.0.1", Some((Class::Reserved, None))),
            ("::", Some((Class::Unspecified, None))),
            ("::1", Some((Class::Loopback, None))),
            ("fe80::1", Some((Class::LinkLocal, None))),
            ("febf::1", Some((Class::LinkLocal, None))),
            ("fec0::1", Some((Class::SiteLocal, None))),
            ("fd00::1", Some((Class::UniqueLocal, None))),
            ("fc00::1", Some((Class::UniqueLocal, None))),
            ("ff02::1", Some((Class::Multicast, None))),
            (
                "::ffff:127.0.0.1",
                Some((Class::Loopback, Some("IPv4-mapped"))),
            ),
            (
                "::ffff:169.254.169.254",
                Some((Class::LinkLocal, Some("IPv4-mapped"))),
            ),
            (
                "::10.0.0.1",
                Some((Class::Private, Some("IPv4-compatible"))),
            ),
            (
                "::127.0.0.1",
                Some((Class::Loopback, Some("IPv4-compatible"))),
            ),
            (
                "64:ff9b::a9fe:a9fe",
                Some((Class::LinkLocal, Some("NAT64"))),
            ),
            ("2002:7f00:1::", Some((Class::Loopback, Some("6to4")))),
            // Public, and the documentation ranges the tests serve from.
            ("8.8.8.8", None),
            ("172.32.0.1", None),
            ("100.128.0.1", None),
            ("192.0.2.2", None),
            ("203.0.113.9", None),
            ("::ffff:8.8.8.8", None),
            ("2001:db8::1", None),
            ("2606:4700::1111", None),
            ("2002:0808:0808::", None),
        ];
        for (ip, class) in cases {
            let parsed: IpAddr = ip.parse().unwrap();
            assert_eq!(refused(parsed), *class, "{ip}");
        }
    }
}
