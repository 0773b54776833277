//! [`Config`]: runtime settings shared by every transport.

use std::sync::Arc;

use super::Middleware;

/// The default number of items per list page.
pub(crate) const DEFAULT_PAGE_SIZE: usize = 100;

/// `cacheScope` of modern list, read and discover results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheScope {
    /// Any client may reuse the result.
    Public,
    /// Reuse only under the same authorization (the default: `connect` may vary what is listed).
    #[default]
    Private,
}

impl CacheScope {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}

/// Runtime settings of a server, independent of the transport.
#[derive(Clone)]
#[non_exhaustive]
pub struct Config {
    /// Items per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` (default 100).
    pub page_size: usize,
    /// `ttlMs` of modern discover, list and read results (default 0: stale at once).
    pub cache_ttl_ms: u64,
    /// `cacheScope` of those results (default `private`).
    pub cache_scope: CacheScope,
    /// Hooks around every feature request (default none).
    pub middleware: Option<Arc<dyn Middleware>>,
    /// Whether `tools/list` spells tool schemas portably (default `true`): schemars' integer
    /// formats (`"format": "uint32"`, …) become `minimum`/`maximum`, and `type` arrays
    /// (`["integer", "null"]`) become `anyOf` branches. `false` lists schemas exactly as schemars
    /// generates them. Either way the same values validate.
    pub portable_schemas: bool,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("page_size", &self.page_size)
            .field("cache_ttl_ms", &self.cache_ttl_ms)
            .field("cache_scope", &self.cache_scope)
            .field("middleware", &self.middleware.is_some())
            .field("portable_schemas", &self.portable_schemas)
            .finish()
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            page_size: DEFAULT_PAGE_SIZE,
            cache_ttl_ms: 0,
            cache_scope: CacheScope::Private,
            middleware: None,
            portable_schemas: true,
        }
    }
}

impl Config {
    /// Sets the page size (at least 1).
    #[must_use]
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Runs `middleware` around every feature request.
    #[must_use]
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware = Some(Arc::new(middleware));
        self
    }

    /// Lists tool schemas in portable spelling (`true`, the default) or exactly as schemars
    /// generates them (`false`, keeping `"format": "uint32"` and `type` arrays).
    #[must_use]
    pub fn portable_schemas(mut self, portable: bool) -> Self {
        self.portable_schemas = portable;
        self
    }

    /// Sets the caching hints of modern results.
    #[must_use]
    pub fn cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.cache_ttl_ms = ttl_ms;
        self.cache_scope = scope;
        self
    }
}
