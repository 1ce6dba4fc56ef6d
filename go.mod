module github.com/hookexec/hook-exec

go 1.26

require (
	github.com/Azure/go-ansiterm v0.0.0-20250102033503-faa5f7b0171c // indirect
	github.com/docker/docker v28.5.2+incompatible // indirect
	github.com/docker/go-units v0.5.0 // indirect
	github.com/moby/term v0.5.2 // indirect
	github.com/opencontainers/runtime-spec v1.3.0 // indirect
	golang.org/x/sys v0.1.0 // indirect
)
