import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconMailForward } from '@tabler/icons-react';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { ApiError } from '../api/client';
import type { SignUpStatus } from '../api/types';
import { useApi } from '../api/use-api';
import { Logo } from '../layout/app-layout';
import { useSession } from '../session/session-context';

const MIN_PASSWORD = 10;

/** The centred card the account pages share: sign-in, sign-up, "check your mail", confirming an address. */
export function AuthCard({ children, footer }: { readonly children: ReactNode; readonly footer?: ReactNode }) {
  return (
    <Center mih="100vh" p="md" bg="var(--mantine-color-body)">
      <Stack w="100%" maw={420} gap="lg">
        <Center>
          <Logo />
        </Center>
        <Paper withBorder shadow="sm" p={{ base: 'lg', sm: 'xl' }} radius="md">
          {children}
        </Paper>
        {footer}
      </Stack>
    </Center>
  );
}

/** The server's refusal under the field it names, or above the form. */
export function fieldErrors(caught: unknown): { email?: string; password?: string; form?: string } {
  const error = caught instanceof ApiError ? caught : null;
  const message = error?.message ?? String(caught);
  if (error?.param === 'email') return { email: message };
  if (error?.param === 'password') return { password: message };
  if (error?.status === 429) return { form: `${message} Wait a moment before trying again.` };
  return { form: message };
}

/** After sign-up: the account waits for its address to be confirmed. */
function CheckYourMail({ email }: { readonly email: string }) {
  return (
    <AuthCard
      footer={
        <Text ta="center" size="sm">
          <Anchor component={Link} to="/signin">
            Back to sign in
          </Anchor>
        </Text>
      }
    >
      <Stack>
        <IconMailForward size={36} stroke={1.5} aria-hidden />
        <Title order={2} size="h3">
          Check your mail
        </Title>
        <Text>
          We sent a link to <strong>{email}</strong>. Open it within 24 hours and enter the password you just chose: that creates your account.
        </Text>
        <Text c="dimmed" size="sm">
          Nothing there after a few minutes? Look in your spam folder, or sign up again.
        </Text>
      </Stack>
    </AuthCard>
  );
}

/** Sign in and sign up: one form, two modes. */
export function AuthPage({ mode }: { readonly mode: 'signin' | 'signup' }) {
  const { session, signIn, signUp } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const signUpStatus = useApi<SignUpStatus>('/auth/signup');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string; form?: string }>({});
  const [submitting, setSubmitting] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const from = (location.state as { from?: string } | null)?.from ?? '/routers';

  if (session !== null && session !== undefined) return <Navigate to={from} replace />;
  const signup = mode === 'signup';
  if (signup && sentTo !== null) return <CheckYourMail email={sentTo} />;
  const closed = signUpStatus.data?.open === false;
  const firstStart = !signup && signUpStatus.data?.firstStart === true;
  // The one-time sign-in link printed by the first start lands here when it was used or has expired.
  const linkRefused = !signup && new URLSearchParams(location.search).get('link') === 'invalid';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (signup && password.length < MIN_PASSWORD) {
      setErrors({ password: `Use at least ${MIN_PASSWORD} characters.` });
      return;
    }
    setSubmitting(true);
    setErrors({});
    try {
      if (signup) {
        await signUp(email, password);
        setSentTo(email.trim().toLowerCase());
      } else {
        await signIn(email, password);
        navigate(from, { replace: true });
      }
    } catch (caught) {
      setErrors(fieldErrors(caught));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard
      footer={
        signup || !closed ? (
          <Text ta="center" size="sm">
            {signup ? 'Already have an account? ' : 'New to ModelPort? '}
            <Anchor component={Link} to={signup ? '/signin' : '/signup'} state={location.state}>
              {signup ? 'Sign in' : 'Create an account'}
            </Anchor>
          </Text>
        ) : null
      }
    >
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack>
          <div>
            <Title order={2} size="h3">
              {signup ? 'Create your account' : 'Sign in'}
            </Title>
            <Text c="dimmed" size="sm" mt={4}>
              {signup ? 'Route every request to the right model, and see what it costs.' : 'Welcome back to your routers, keys and usage.'}
            </Text>
          </div>
          {linkRefused ? (
            <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              This sign-in link was already used or has expired (it works once, for 30 minutes). Sign in with the email and password printed by the
              server&apos;s first start.
            </Alert>
          ) : null}
          {firstStart && !linkRefused ? (
            <Alert color="blue" variant="light" role="status">
              New server? Sign in with the credentials printed by the first start: the email (admin@modelport.local) and password in the server&apos;s
              output, beside a one-time sign-in link.
            </Alert>
          ) : null}
          {signup && closed ? (
            <Alert color="gray" variant="light" role="status">
              Sign-up is closed on this server: ask its operator to create your account.
            </Alert>
          ) : null}
          {errors.form === undefined ? null : (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              {errors.form}
            </Alert>
          )}
          {signup && closed ? null : (
            <>
              <TextInput label="Email" type="email" autoComplete="email" required data-autofocus value={email} onChange={(event) => setEmail(event.currentTarget.value)} error={errors.email} />
              <PasswordInput
                label="Password"
                autoComplete={signup ? 'new-password' : 'current-password'}
                required
                description={signup ? `At least ${MIN_PASSWORD} characters, hard to guess: a phrase of unrelated words works well.` : undefined}
                value={password}
                onChange={(event) => setPassword(event.currentTarget.value)}
                error={errors.password}
              />
              <Button type="submit" loading={submitting} fullWidth mt="xs">
                {signup ? 'Create account' : 'Sign in'}
              </Button>
            </>
          )}
        </Stack>
      </form>
    </AuthCard>
  );
}
