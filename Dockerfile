# syntax=docker/dockerfile:1
# shush serve in a container: a static, CGO-free binary (the SQLite driver is
# pure Go) on a distroless base, running as a non-root user, with the
# database under the /data volume. The version comes from a build argument
# (shush version, the User-Agent, the image's labels); the licence and the
# third-party notices of the modules linked into the binary are in
# /usr/share/doc/shush.
#
#   docker build -t shush --build-arg VERSION=v1.2.0 --build-arg REVISION="$(git rev-parse HEAD)" .
#   docker run -d -p 8080:8080 -v shush-data:/data shush
#   docker run --rm -v shush-data:/data shush keys create --team support

FROM golang:1.26-bookworm AS build
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/shushlist/shush/cli.Version=${VERSION}" -o /out/shush . \
 && go run ./scripts/notices -version "${VERSION}" -goos linux -goarch "$(go env GOARCH)" > /out/THIRD_PARTY_NOTICES.txt \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="shush" \
      org.opencontainers.image.description="The Suppression List Batch API service (shush serve) and its CLI" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/shushlist/shush" \
      org.opencontainers.image.licenses="MIT"
COPY --from=build /out/shush /usr/local/bin/shush
COPY --from=build /src/LICENSE /out/THIRD_PARTY_NOTICES.txt /usr/share/doc/shush/
COPY --from=build --chown=nonroot:nonroot /out/data /data
VOLUME /data
# Inside the container the service listens on every interface; put TLS in
# front (or give SHUSH_TLS_CERT/SHUSH_TLS_KEY) when the port leaves the host.
ENV SHUSH_ADDR=0.0.0.0:8080 \
    SHUSH_DB=/data/shush.db \
    SHUSH_LOG_FORMAT=json
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/shush"]
CMD ["serve"]
