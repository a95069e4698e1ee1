package drivers

// Endpointer is implemented by connections that can say where they are
// connected: the host and port (or socket) in the user's words, the zero
// Endpoint while not connected. It changes only when the connection is
// (re)opened, so callers ask after a connect or a reconnect, never per
// query.
type Endpointer interface {
	Endpoint() Endpoint
}

// EndpointOf is c's endpoint as text, "" when c cannot say.
func EndpointOf(c Conn) string {
	if e, ok := c.(Endpointer); ok {
		return e.Endpoint().String()
	}
	return ""
}

// FailoverOrder is the order in which connection n tries the n endpoints
// of a list: its own first (n mod count, the round-robin choice), then
// the ones after it, wrapping around. A host that is down or not of the
// wanted kind sends the connection to the next one in the list.
func FailoverOrder(n uint64, count int) []int {
	order := make([]int, count)
	for i := range order {
		order[i] = int((n + uint64(i)) % uint64(count))
	}
	return order
}
