import { Alert, Anchor, Button, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconMailCheck } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { ApiError } from '../api/client';
import { useSession } from '../session/session-context';
import { AuthCard, fieldErrors } from './auth-page';

/**
 * Where the mailed link leads (`/signup/verify#token=…`: in the fragment, so the token never reaches a server log or
 * a Referer). Asks for the password chosen at sign-up, so that clicking a link someone else asked for creates nothing.
 */
export function VerifyPage() {
  const { session, verify } = useSession();
  const location = useLocation();
  const token = new URLSearchParams(location.hash.replace(/^#/, '')).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ password?: string; form?: string }>({});
  const [submitting, setSubmitting] = useState(false);
  const [verified, setVerified] = useState(false);

  if (verified && session !== null && session !== undefined) {
    return (
      <AuthCard>
        <Stack>
          <IconMailCheck size={36} stroke={1.5} aria-hidden />
          <Title order={2} size="h3">
            Address confirmed
          </Title>
          <Text>
            Your account <strong>{session.user.email}</strong> is ready, and you are signed in.
          </Text>
          <Button component={Link} to="/routers" replace fullWidth>
            Continue to your routers
          </Button>
        </Stack>
      </AuthCard>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitting(true);
    setErrors({});
    try {
      await verify(token, password);
      setVerified(true);
    } catch (caught) {
      const found = fieldErrors(caught);
      if (caught instanceof ApiError && caught.code === 'invalid_credentials') setErrors({ password: 'This is not the password chosen at sign-up.' });
      else setErrors(found.email !== undefined ? { form: `${found.email} Sign in instead.` } : found);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard
      footer={
        <Text ta="center" size="sm">
          Link expired or already used?{' '}
          <Anchor component={Link} to="/signup">
            Sign up again
          </Anchor>
        </Text>
      }
    >
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack>
          <div>
            <Title order={2} size="h3">
              Confirm your address
            </Title>
            <Text c="dimmed" size="sm" mt={4}>
              Enter the password you chose when you signed up: that creates your account.
            </Text>
          </div>
          {token === '' ? (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              This link has no token: open the link from the mail as it is.
            </Alert>
          ) : null}
          {errors.form === undefined ? null : (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              {errors.form}
            </Alert>
          )}
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            data-autofocus
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={errors.password}
          />
          <Button type="submit" loading={submitting} disabled={token === ''} fullWidth mt="xs">
            Confirm and create account
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
