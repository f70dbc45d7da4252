// Shared by every mdfi kernel: Darknet's activations in float, numbered as mdfi::Activation
// (engine/activation.h) so the host passes the enum value straight through.
#define ACT_LINEAR 0
#define ACT_LOGISTIC 1
#define ACT_LOGGY 2
#define ACT_RELU 3
#define ACT_ELU 4
#define ACT_SELU 5
#define ACT_RELIE 6
#define ACT_RAMP 7
#define ACT_LEAKY 8
#define ACT_TANH 9
#define ACT_PLSE 10
#define ACT_STAIR 11
#define ACT_HARDTAN 12
#define ACT_LHTAN 13
// AlexeyAB Darknet only, in its float formulas.
#define ACT_MISH 14
#define ACT_SWISH 15
#define ACT_RELU6 16
#define ACT_HARD_MISH 17
#define ACT_GELU 18

inline float mdfi_softplus(float x, float threshold) {
  if (x > threshold) return x;
  if (x < -threshold) return exp(x);
  return log(exp(x) + 1.f);
}

inline float mdfi_activate(float x, int a) {
  switch (a) {
    case ACT_LINEAR: return x;
    case ACT_LOGISTIC: return 1.f / (1.f + exp(-x));
    case ACT_LOGGY: return 2.f / (1.f + exp(-x)) - 1.f;
    case ACT_RELU: return x > 0.f ? x : 0.f;
    case ACT_ELU: return x >= 0.f ? x : exp(x) - 1.f;
    case ACT_SELU: return x >= 0.f ? 1.0507f * x : 1.0507f * 1.6732f * (exp(x) - 1.f);
    case ACT_RELIE: return x > 0.f ? x : .01f * x;
    case ACT_RAMP: return (x > 0.f ? x : 0.f) + .1f * x;
    case ACT_LEAKY: return x > 0.f ? x : .1f * x;
    case ACT_TANH: return tanh(x);
    case ACT_PLSE:
      if (x < -4.f) return .01f * (x + 4.f);
      if (x > 4.f) return .01f * (x - 4.f) + 1.f;
      return .125f * x + .5f;
    case ACT_STAIR: {
      int n = (int)floor(x);
      if (n % 2 == 0) return floor(x / 2.f);
      return (x - n) + floor(x / 2.f);
    }
    case ACT_HARDTAN: return clamp(x, -1.f, 1.f);
    case ACT_LHTAN:
      if (x < 0.f) return .001f * x;
      if (x > 1.f) return .001f * (x - 1.f) + 1.f;
      return x;
    case ACT_MISH: return x * (2.f / (1.f + exp(-2.f * mdfi_softplus(x, 20.f))) - 1.f);
    case ACT_SWISH: return x * (1.f / (1.f + exp(-x)));
    case ACT_RELU6: return fmin(fmax(x, 0.f), 6.f);
    case ACT_HARD_MISH:
      if (x > 0.f) return x;
      if (x > -2.f) return x * x / 2.f + x;
      return 0.f;
    case ACT_GELU: return .5f * x * (1.f + tanh(.797885f * x + .035677f * x * x * x));
  }
  return x;
}
