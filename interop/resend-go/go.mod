module github.com/shushlist/shush/interop/resend-go

go 1.26

require github.com/resend/resend-go/v3 v3.17.0
