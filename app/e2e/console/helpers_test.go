package console_test

import (
	"context"

	"github.com/consentd/consentd/core"
)

// systemCtx acts as the system, for set-up done straight on the store.
var systemCtx = core.WithActor(context.Background(), core.System("console tests"))

func ptr[T any](v T) *T { return &v }
