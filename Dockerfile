# syntax=docker/dockerfile:1
# shush serve in a container: a static, CGO-free binary (the SQLite driver is
# pure Go) on a distroless base, running as a non-root user, with the
# database under the /data volume.
#
#   docker build -t shush .
#   docker run -d -p 8080:8080 -v shush-data:/data shush
#   docker run --rm -v shush-data:/data shush keys create --team support

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/shush . \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/shush /usr/local/bin/shush
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
