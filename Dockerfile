# etlscope as a shared team server. Untested here (no Docker engine on the
# build machines); it runs the same steps as the README.
FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p etlscope

FROM debian:bookworm-slim
RUN useradd --system --home /data etlscope && mkdir -p /data && chown etlscope /data
COPY --from=build /src/target/release/etlscope /usr/local/bin/etlscope
USER etlscope
VOLUME /data
EXPOSE 8717
# Listening beyond loopback requires a token for uploads and deletes:
#   docker run -e ETLSCOPE_TOKEN=secret -p 8717:8717 -v etlscope:/data etlscope
ENTRYPOINT ["etlscope", "serve", "--addr", "0.0.0.0:8717", "--data-dir", "/data"]
