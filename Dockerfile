# rodd: the daemon, the viewer and the examples in one image a group shares.
#   podman build --format docker -t rodd:0.1.0 .      (or docker build -t rodd:0.1.0 .)
#   token=$(openssl rand -hex 24); echo "operator token: $token"
#   podman run -p 8080:8080 -v rodd-state:/var/lib/rodd \
#     -e RODD_TOKENS=operator:$token rodd:0.1.0
# (the daemon refuses placeholder tokens such as CHANGE-ME)
# Port: 8080 carries REST, the viewer and the streams (WebSocket), so one -p mapping, tunnel
# or proxy upstream reaches everything (RODD_WS_PORT adds a port for streams alone). Without
# tokens the daemon refuses to listen anywhere but loopback (set RODD_LISTEN=127.0.0.1:8080
# with host networking); give tokens (RODD_TOKENS, or a file at RODD_TOKENS_FILE, e.g. a
# mounted secret) to serve a network.
# BASE lets a build use a locally made Debian bookworm instead of the public image. A viewer
# already built in web/dist (make web) is used as is; otherwise the build stage builds it
# (which needs the npm registry).
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS build
WORKDIR /src
COPY deploy/setup.sh deploy/setup.sh
RUN bash deploy/setup.sh --build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN rm -rf build build-asan \
 && make -j"$(nproc)" all SETUP_MODE=--build \
 && bash deploy/check-runtime-libs.sh build/rodd build/rodd-full \
 && if [ ! -f web/dist/index.html ] && [ -f web/build.sh ]; then bash web/build.sh; fi \
 && mkdir -p web/dist

FROM ${BASE} AS runtime
# the version rodd --version, CITATION.cff and the OpenAPI document carry (tests/cli checks it)
LABEL org.opencontainers.image.title="rodd" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="MIT"
COPY deploy/setup.sh /tmp/setup.sh
RUN bash /tmp/setup.sh --runtime \
 && rm -rf /var/lib/apt/lists/* /tmp/setup.sh \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/rodd --shell /usr/sbin/nologin rodd \
 && mkdir -p /var/lib/rodd /etc/rodd \
 && chown rodd:rodd /var/lib/rodd
COPY --from=build /src/build/rodd /usr/local/bin/rodd
# serve, probe and run --format hdf5: rodd exec's it (the other commands load none of its libraries)
COPY --from=build /src/build/rodd-full /usr/local/lib/rodd/rodd-full
COPY --from=build /src/web/dist /usr/share/rodd/web
COPY api/examples /usr/share/rodd/examples
COPY api/openapi.yaml* api/spec.schema.json /usr/share/rodd/
# every library the binaries need is here (the build stage checked the list)
RUN ! ldd /usr/local/bin/rodd /usr/local/lib/rodd/rodd-full | grep -q "not found" && rodd --version \
 && /usr/local/lib/rodd/rodd-full --version
ENV RODD_LISTEN=0.0.0.0:8080 \
    RODD_STATE_DIR=/var/lib/rodd \
    RODD_WEB_ROOT=/usr/share/rodd/web \
    RODD_EXAMPLES_DIR=/usr/share/rodd/examples
EXPOSE 8080
VOLUME /var/lib/rodd
USER rodd
WORKDIR /var/lib/rodd
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 CMD ["/usr/local/bin/rodd", "probe"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/rodd"]
CMD ["serve"]
