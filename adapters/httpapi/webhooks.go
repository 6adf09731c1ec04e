package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/watch"
)

// WebhookUseCases manage the organization's webhook endpoints and their delivery log.
type WebhookUseCases interface {
	CreateEndpoint(ctx context.Context, orgID string, in watch.WebhookInput) (*event.WebhookEndpoint, error)
	Endpoints(ctx context.Context, orgID string) ([]*event.WebhookEndpoint, error)
	Endpoint(ctx context.Context, orgID, id string) (*event.WebhookEndpoint, error)
	UpdateEndpoint(ctx context.Context, orgID, id string, in watch.WebhookInput) (*event.WebhookEndpoint, error)
	DeleteEndpoint(ctx context.Context, orgID, id string) error
	Deliveries(ctx context.Context, orgID, endpointID string, page, limit int) ([]*event.WebhookDelivery, int, error)
	Delivery(ctx context.Context, orgID, endpointID, id string) (*event.WebhookDelivery, error)
	Redeliver(ctx context.Context, orgID, endpointID, id string) (*event.WebhookDelivery, error)
	SendTest(ctx context.Context, orgID, id string) (*event.WebhookDelivery, error)
}

// WebhookCreatedOut is a new endpoint with its signing secret, shown this once.
type WebhookCreatedOut struct {
	*event.WebhookEndpoint
	Secret string `json:"secret" doc:"The signing secret in the Standard Webhooks form (whsec_ and base64), shown only in this response."`
}

// WebhookIDPath names a webhook endpoint.
type WebhookIDPath struct {
	ID string `path:"id" doc:"Webhook endpoint ID (UUID)."`
}

// DeliveryPath names a delivery of an endpoint.
type DeliveryPath struct {
	WebhookIDPath
	DeliveryID string `path:"deliveryId" maxLength:"100" doc:"Delivery ID: the webhook-id header of its attempts."`
}

const webhooksDoc = "Events are delivered as POST requests signed as the Standard Webhooks specification says: " +
	"headers webhook-id (the delivery's ID, the same on every attempt: process it once), webhook-timestamp (Unix seconds) and " +
	"webhook-signature (v1, then the base64 HMAC-SHA256 of id.timestamp.body with the secret's bytes). The body is " +
	"{type, timestamp, data}. A 2xx answer acknowledges; anything else, or no answer within 15 seconds, is retried after " +
	"5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (about 27.6 hours in all). An endpoint whose deliveries have failed for 24 hours " +
	"is disabled when a delivery exhausts its attempts; disabledReason says so. consent.recorded carries many records per " +
	"delivery, at most one delivery a second per endpoint. Event types: " +
	"scan.completed, scan.failed, scan.changed (a completed scan whose changes are not empty), compliance.changed (a verification " +
	"scan changed the compliance verdict), consent.recorded, visitor.erased, config.changed."

func (h *handlers) registerWebhooks(api huma.API) {
	type webhookCreateBody struct {
		URL         string   `json:"url" format:"uri" maxLength:"500" doc:"Where events are POSTed: an absolute http(s) URL on a public address. A host written as an address (in any form a URL parser reads as one: 1681915905, 0177.0.0.1, 0x7f.1, 127.1, [::1]) in a special-purpose range of the IANA registries (loopback, private, shared 100.64.0.0/10, link-local, multicast, broadcast, reserved, documentation, benchmarking...) is refused with 400, unless the operator sets CONSENTD_WEBHOOK_ALLOW_PRIVATE; a name is checked on the addresses it resolves to at each delivery."`
		Events      []string `json:"events" minItems:"1" maxItems:"7" uniqueItems:"true" enum:"scan.completed,scan.failed,scan.changed,compliance.changed,consent.recorded,visitor.erased,config.changed" doc:"Event types delivered."`
		Description string   `json:"description,omitempty" maxLength:"500"`
		Enabled     *bool    `json:"enabled,omitempty" doc:"Default true."`
	}
	o := op("createWebhook", http.MethodPost, "/webhooks", "Create a webhook endpoint", "Webhooks", http.StatusCreated)
	o.Description = "Creates an endpoint of the caller's organization, with a new signing secret shown only in this response. " + webhooksDoc
	huma.Register(api, o, func(ctx context.Context, in *struct{ Body webhookCreateBody }) (*struct{ Body WebhookCreatedOut }, error) {
		b := in.Body
		e, err := h.m.CreateEndpoint(ctx, orgOf(ctx), watch.WebhookInput{URL: &b.URL, Events: b.Events, Description: &b.Description, Enabled: b.Enabled})
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body WebhookCreatedOut }{WebhookCreatedOut{e, e.Secret}}, nil
	})

	huma.Register(api, op("listWebhooks", http.MethodGet, "/webhooks", "List webhook endpoints", "Webhooks", 0),
		func(ctx context.Context, _ *struct{}) (*struct{ Body []*event.WebhookEndpoint }, error) {
			es, err := h.m.Endpoints(ctx, orgOf(ctx))
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body []*event.WebhookEndpoint }{es}, nil
		})

	huma.Register(api, op("getWebhook", http.MethodGet, "/webhooks/{id}", "Get a webhook endpoint", "Webhooks", 0),
		func(ctx context.Context, in *WebhookIDPath) (*struct{ Body *event.WebhookEndpoint }, error) {
			e, err := h.m.Endpoint(ctx, orgOf(ctx), in.ID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body *event.WebhookEndpoint }{e}, nil
		})

	type webhookPatchBody struct {
		URL         *string  `json:"url,omitempty" nullable:"false" format:"uri" maxLength:"500" doc:"Where events are POSTed, under the same address rule as on creation."`
		Events      []string `json:"events,omitempty" minItems:"1" maxItems:"7" uniqueItems:"true" enum:"scan.completed,scan.failed,scan.changed,compliance.changed,consent.recorded,visitor.erased,config.changed"`
		Description *string  `json:"description,omitempty" nullable:"false" maxLength:"500"`
		Enabled     *bool    `json:"enabled,omitempty" nullable:"false" doc:"true enables an endpoint again (after an automatic disabling too), false stops deliveries."`
	}
	huma.Register(api, op("updateWebhook", http.MethodPatch, "/webhooks/{id}", "Update a webhook endpoint", "Webhooks", 0),
		func(ctx context.Context, in *struct {
			WebhookIDPath
			Body webhookPatchBody
		}) (*struct{ Body *event.WebhookEndpoint }, error) {
			b := in.Body
			e, err := h.m.UpdateEndpoint(ctx, orgOf(ctx), in.ID, watch.WebhookInput{URL: b.URL, Events: b.Events, Description: b.Description, Enabled: b.Enabled})
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body *event.WebhookEndpoint }{e}, nil
		})

	o = op("deleteWebhook", http.MethodDelete, "/webhooks/{id}", "Delete a webhook endpoint", "Webhooks", 0)
	o.Description = "Removes the endpoint and its delivery log; deliveries not yet made are dropped."
	huma.Register(api, o, func(ctx context.Context, in *WebhookIDPath) (*successBody, error) {
		if err := h.m.DeleteEndpoint(ctx, orgOf(ctx), in.ID); err != nil {
			return nil, h.fail(ctx, err)
		}
		return success(), nil
	})

	type deliveryPage struct {
		Deliveries []*event.WebhookDelivery `json:"deliveries"`
		Total      int                      `json:"total"`
		Page       int                      `json:"page"`
		Limit      int                      `json:"limit"`
	}
	o = op("listWebhookDeliveries", http.MethodGet, "/webhooks/{id}/deliveries", "List an endpoint's deliveries", "Webhooks", 0)
	o.Description = "The delivery log, newest first: each delivery with its payload, status and attempts (time, HTTP status or error, start of the answer)."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		WebhookIDPath
		Page  int `query:"page" default:"1" minimum:"1" maximum:"1000000"`
		Limit int `query:"limit" default:"50" minimum:"1" maximum:"100"`
	}) (*struct{ Body deliveryPage }, error) {
		ds, total, err := h.m.Deliveries(ctx, orgOf(ctx), in.ID, in.Page, in.Limit)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body deliveryPage }{deliveryPage{Deliveries: ds, Total: total, Page: in.Page, Limit: in.Limit}}, nil
	})

	huma.Register(api, op("getWebhookDelivery", http.MethodGet, "/webhooks/{id}/deliveries/{deliveryId}", "Get a delivery", "Webhooks", 0),
		func(ctx context.Context, in *DeliveryPath) (*struct{ Body *event.WebhookDelivery }, error) {
			d, err := h.m.Delivery(ctx, orgOf(ctx), in.ID, in.DeliveryID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body *event.WebhookDelivery }{d}, nil
		})

	o = op("testWebhook", http.MethodPost, "/webhooks/{id}/test", "Send a test event", "Webhooks", http.StatusCreated)
	o.Description = "Queues a `webhook.test` delivery to the endpoint (enabled; whatever events it subscribes to), signed and retried " +
		"like any other, with data {endpointId, message}; answers the delivery, whose attempts then show in the delivery log."
	huma.Register(api, o, func(ctx context.Context, in *WebhookIDPath) (*struct{ Body *event.WebhookDelivery }, error) {
		d, err := h.m.SendTest(ctx, orgOf(ctx), in.ID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *event.WebhookDelivery }{d}, nil
	})

	o = op("redeliverWebhook", http.MethodPost, "/webhooks/{id}/deliveries/{deliveryId}/redeliver", "Redeliver", "Webhooks", http.StatusCreated)
	o.Description = "Sends the delivery's payload again as a new delivery (a new webhook-id), to an enabled endpoint; answers the new delivery."
	huma.Register(api, o, func(ctx context.Context, in *DeliveryPath) (*struct{ Body *event.WebhookDelivery }, error) {
		d, err := h.m.Redeliver(ctx, orgOf(ctx), in.ID, in.DeliveryID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *event.WebhookDelivery }{d}, nil
	})
}

// DigestUseCases unsubscribe addresses from email digests.
type DigestUseCases interface {
	Unsubscribe(ctx context.Context, token string) (string, error)
}

type unsubscribeOutput struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func (h *handlers) registerUnsubscribe(api huma.API) {
	handler := func(ctx context.Context, in *struct {
		Token string `path:"token" maxLength:"200" doc:"The token of the email's unsubscribe link."`
	}) (*unsubscribeOutput, error) {
		email, err := h.m.Unsubscribe(ctx, in.Token)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &unsubscribeOutput{ContentType: "text/plain; charset=utf-8",
			Body: []byte(email + " will no longer receive this site's consentd digest.\n")}, nil
	}
	o := publicOp("unsubscribeDigest", http.MethodGet, "/unsubscribe/{token}", "Unsubscribe from an email digest", 0)
	o.Description = "The link at the bottom of every digest email: removes its address from the site's digest and says so in plain text. Unknown or used links are a 404."
	huma.Register(api, o, handler)
	o = publicOp("unsubscribeDigestOneClick", http.MethodPost, "/unsubscribe/{token}", "Unsubscribe from an email digest (one click)", 0)
	o.Description = "The same, for mail clients' one-click unsubscribe (RFC 8058, List-Unsubscribe-Post)."
	huma.Register(api, o, handler)
}
