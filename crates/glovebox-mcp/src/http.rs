//! `glovebox serve`: the same tools over MCP's streamable HTTP transport,
//! bound to 127.0.0.1 only. Every request must carry the server's bearer
//! token (401 otherwise), and a request whose `Host` or `Origin` is not a
//! loopback name is refused (403): a web page the user visits cannot reach
//! the desktop through the browser (DNS rebinding, cross-site requests).
//!
//! Behind the same gate, paths under `/v1/` go to an optional [`Routes`]
//! hook: the binary serves the OpenAI and Anthropic computer-use executors
//! there (glovebox-mcp does not depend on them).

use crate::GloveboxServer;
use bytes::Bytes;
use glovebox_services::access::{loopback, same_secret};
use http_body_util::{combinators::BoxBody, BodyExt as _, Full};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

/// Largest request body a `/v1/` route accepts.
pub const MAX_ROUTE_BODY: usize = 4 << 20;

/// JSON endpoints under `/v1/`, answered on a blocking thread.
pub trait Routes: Send + Sync {
    /// Answers a POST of `body` to `path` with an HTTP status and a JSON body.
    fn post(&self, path: &str, body: &[u8]) -> (u16, String);
}

impl GloveboxServer {
    /// The host this server answers through (shared: clones share its
    /// state), or why there is none; for surfaces served next to it.
    pub fn host(&self) -> Result<glovebox_host::Host, glovebox_model::Refusal> {
        self.shared.host.clone()
    }
}

fn json(status: StatusCode, body: String) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

fn route_error(status: StatusCode, message: &str) -> Response<BoxBody<Bytes, Infallible>> {
    json(
        status,
        serde_json::json!({"error": {"code": "COMPUTER_INVALID_ARGUMENT", "message": message}})
            .to_string(),
    )
}

/// A `/v1/` request: POST only, the body read up to [`MAX_ROUTE_BODY`],
/// the route run off the async threads (executors block on the desktop).
async fn route(
    routes: Arc<dyn Routes>,
    request: Request<hyper::body::Incoming>,
) -> Response<BoxBody<Bytes, Infallible>> {
    if request.method() != hyper::Method::POST {
        return route_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "the /v1/ endpoints take POST with a JSON body",
        );
    }
    let path = request.uri().path().to_owned();
    let body =
        match http_body_util::Limited::new(request.into_body(), MAX_ROUTE_BODY).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) => {
                return route_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!(
                        "the request body could not be read (at most {MAX_ROUTE_BODY} bytes): {e}"
                    ),
                )
            }
        };
    match tokio::task::spawn_blocking(move || routes.post(&path, &body)).await {
        Ok((status, body)) => {
            json(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), body)
        }
        Err(e) => {
            route_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("the endpoint failed: {e}"))
        }
    }
}

fn plain(status: StatusCode, text: &str) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *response.status_mut() = status;
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// The refusal for a request that must not reach the tools, if it is one.
pub fn gate<B>(token: &str, request: &Request<B>) -> Option<Response<BoxBody<Bytes, Infallible>>> {
    let header =
        |name: hyper::header::HeaderName| request.headers().get(name).and_then(|v| v.to_str().ok());
    if !header(hyper::header::HOST).is_some_and(loopback) {
        return Some(plain(StatusCode::FORBIDDEN, "glovebox serves loopback hosts only"));
    }
    if let Some(origin) = header(hyper::header::ORIGIN) {
        let host = origin
            .split_once("://")
            .map(|(_, rest)| rest)
            .unwrap_or(origin)
            .split('/')
            .next()
            .unwrap_or_default();
        if !loopback(host) {
            return Some(plain(StatusCode::FORBIDDEN, "requests from other origins are refused"));
        }
    }
    let presented = header(hyper::header::AUTHORIZATION)
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    if !same_secret(presented.as_bytes(), token.as_bytes()) {
        return Some(plain(
            StatusCode::UNAUTHORIZED,
            "a bearer token is required (the one `glovebox serve` printed)",
        ));
    }
    None
}

/// Serves `server` on 127.0.0.1:`port` (0: any free port) until the process
/// ends; `ready` gets the bound address once requests are accepted.
pub fn run_http(
    server: GloveboxServer,
    port: u16,
    token: String,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    run_http_with(server, port, token, ready, None)
}

/// [`run_http`] with JSON endpoints under `/v1/` answered by `routes`,
/// behind the same token and loopback checks.
pub fn run_http_with(
    server: GloveboxServer,
    port: u16,
    token: String,
    ready: impl FnOnce(SocketAddr),
    routes: Option<Arc<dyn Routes>>,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))?;
    // As in run_stdio: the host's own runtimes are dropped outside this one.
    let _keep = server.clone();
    runtime.block_on(async move {
        let factory = server.clone();
        let service = StreamableHttpService::new(
            move || Ok(factory.session()),
            LocalSessionManager::default().into(),
            StreamableHttpServerConfig::default(),
        );
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| format!("binding 127.0.0.1:{port}: {e}"))?;
        ready(listener.local_addr().map_err(|e| e.to_string())?);
        loop {
            let (stream, _) =
                listener.accept().await.map_err(|e| format!("accepting a connection: {e}"))?;
            let (service, token, routes) = (service.clone(), token.clone(), routes.clone());
            tokio::spawn(async move {
                let handler =
                    hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                        let (service, token, routes) =
                            (service.clone(), token.clone(), routes.clone());
                        async move {
                            if let Some(refused) = gate(&token, &request) {
                                return Ok::<_, Infallible>(refused);
                            }
                            if let Some(routes) =
                                routes.filter(|_| request.uri().path().starts_with("/v1/"))
                            {
                                return Ok(route(routes, request).await);
                            }
                            Ok(service.handle(request).await)
                        }
                    });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), handler)
                    .await;
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(host: &str, origin: Option<&str>, auth: Option<&str>) -> Request<()> {
        let mut r = Request::builder().uri("/mcp").header("host", host);
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        r.body(()).unwrap()
    }

    #[test]
    fn only_loopback_requests_with_the_token_pass() {
        let status = |r: &Request<()>| gate("s3cret", r).map(|resp| resp.status());
        assert_eq!(status(&request("127.0.0.1:8750", None, Some("Bearer s3cret"))), None);
        assert_eq!(
            status(&request(
                "localhost:8750",
                Some("http://localhost:3000"),
                Some("Bearer s3cret")
            )),
            None
        );
        assert_eq!(status(&request("[::1]:8750", None, Some("Bearer s3cret"))), None);
        assert_eq!(status(&request("127.0.0.1:8750", None, None)), Some(StatusCode::UNAUTHORIZED));
        assert_eq!(
            status(&request("127.0.0.1:8750", None, Some("Bearer wrong!"))),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            status(&request("evil.example:8750", None, Some("Bearer s3cret"))),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            status(&request("127.0.0.1:8750", Some("https://evil.example"), Some("Bearer s3cret"))),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            status(&request("localhost.evil.example", None, Some("Bearer s3cret"))),
            Some(StatusCode::FORBIDDEN)
        );
    }
}
